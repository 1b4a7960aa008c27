/* kerncast-expect
41: init(double*, int) <<<(3456,1,1), (256,1,1), 0>>> x1 {e=ptr n=884736}
42: init(double*, int) <<<(3566,1,1), (256,1,1), 0>>> x1 {e=ptr n=912673}
*/
// Loops too long to follow to their end write a mesh's arrays through accessors that return
// a member's element by reference (`Real& e(int i) { return m_e[i]; }`) and through a
// pointer to an object made with `new` (`d->m_rep[i] = r`): only those arrays become
// unknown, not the element count the launches use. 96^3 = 884736 elements: 3456 blocks of
// 256; the nodes, 97^3 = 912673: 3566 blocks.
#include <cuda_runtime.h>
#include <vector>

typedef double Real;

__global__ void init(Real* e, int n) {}

class Mesh {
 public:
  explicit Mesh(int edge) {
    m_numElem = edge * edge * edge;
    m_numNode = (edge + 1) * (edge + 1) * (edge + 1);
    m_e.resize(m_numElem);
    m_rep.resize(m_numElem);
    for (int i = 0; i < numElem(); ++i) e(i) = Real(0.0);
  }
  int& numElem() { return m_numElem; }
  int& numNode() { return m_numNode; }
  Real& e(int i) { return m_e[i]; }
  std::vector<Real> m_e;
  std::vector<int> m_rep;

 private:
  int m_numElem, m_numNode;
};

int main() {
  Mesh* d = new Mesh(96);
  for (int i = 0; i < d->numElem(); i++) d->m_rep[i] = i % 7;
  Real* g;
  cudaMalloc(&g, sizeof(Real) * d->numNode());
  init<<<(d->numElem() + 255) / 256, 256>>>(g, d->numElem());
  init<<<(d->numNode() + 255) / 256, 256>>>(g, d->numNode());
  return 0;
}
