/* kerncast-expect
65: k(float*, int) <<<(375,1,1), (32,1,1), 0>>> x1 {n=375 p=ptr}
67: k(float*, int) <<<(797,1,1), (64,1,1), 0>>> x1 {n=797 p=ptr}
70: k(float*, int) <<<(612,1,1), (96,1,1), 0>>> x1 {n=612 p=ptr}
73: k(float*, int) <<<(950,1,1), (128,1,1), 0>>> x1 {n=950 p=ptr}
76: k(float*, int) <<<(785,1,1), (160,1,1), 0>>> x1 {n=785 p=ptr}
80: k(float*, int) <<<(1,1,1), (192,1,1), 0>>> x1 {n=1 p=ptr}
83: k(float*, int) <<<(813,1,1), (224,1,1), 0>>> x1 {n=813 p=ptr}
87: k(float*, int) <<<(779,1,1), (256,1,1), 0>>> x1 {n=779 p=ptr}
91: k(float*, int) <<<(88,1,1), (288,1,1), 0>>> x1 {n=88 p=ptr}
92: k(float*, int) <<<(103,1,1), (320,1,1), 0>>> x1 {n=103 p=ptr}
96: k(float*, int) <<<(34,1,1), (352,1,1), 0>>> x1 {n=34 p=ptr}
99: k(float*, int) <<<(375,1,1), (384,1,1), 0>>> x1 {n=375 p=ptr}
102: k(float*, int) <<<(599,1,1), (416,1,1), 0>>> x1 {n=599 p=ptr}
105: k(float*, int) <<<(924,1,1), (448,1,1), 0>>> x1 {n=924 p=ptr}
108: k(float*, int) <<<(295,1,1), (480,1,1), 0>>> x1 {n=295 p=ptr}
117: k(float*, int) <<<(47,1,1), (512,1,1), 0>>> x1 {n=47 p=ptr}
121: k(float*, int) <<<(?{`w`: a random number},1,1), (544,1,1), 0>>> x1 {n=?{`w`: a random number} p=ptr}
125: k(float*, int) <<<(375,1,1), (576,1,1), 0>>> x1 {n=375 p=ptr}
127: k(float*, int) <<<(375,1,1), (608,1,1), 0>>> x1 {n=375 p=ptr}
129: k(float*, int) <<<(375,1,1), (640,1,1), 0>>> x1 {n=375 p=ptr}
131: k(float*, int) <<<(797,1,1), (672,1,1), 0>>> x1 {n=797 p=ptr}
134: k(float*, int) <<<(?{`v4`: a random number},1,1), (704,1,1), 0>>> x1 {n=?{`v4`: a random number} p=ptr}
137: k(float*, int) <<<(77,1,1), (736,1,1), 0>>> x1 {n=77 p=ptr}
140: k(float*, int) <<<(?{`v6`: a random number},1,1), (768,1,1), 0>>> x1 {n=?{`v6`: a random number} p=ptr}
144: k(float*, int) <<<(?{`v7`: a random number},1,1), (800,1,1), 0>>> x1 {n=?{`v7`: a random number} p=ptr}
148: k(float*, int) <<<(50,1,1), (832,1,1), 0>>> x1 {n=50 p=ptr}
152: k(float*, int) <<<(?{`q2`: a random number},1,1), (864,1,1), 0>>> x1 {n=?{`q2`: a random number} p=ptr}
*/
// C++ <random> as libstdc++ computes it: the engines are fixed by the standard and the
// distributions by libstdc++'s algorithms (Lemire's bounded integers, generate_canonical,
// Marsaglia's polar method), so a seeded engine gives the same numbers on every run and a size
// drawn from it is as known as a constant. Every value below is what this program prints when
// built with g++ 12 and libstdc++. A seed kerncast cannot know (`std::random_device`) leaves the
// engine, and every number drawn from it, unknown; so does a draw it may not have followed (on
// one side of a condition it cannot decide, in a function it has no body for, in a loop too
// long to run), until the program seeds the engine again; a normal distribution drawn there may
// hold a saved value, so what it gives stays unknown even from a seeded engine. A copy of an
// engine, and one passed by value, draws on its own.
#include <random>
#include <vector>
#include <ctime>
#include <cuda_runtime.h>

__global__ void k(float* p, int n) {}

static int by_value(std::mt19937 g) {
  std::uniform_int_distribution<int> d(1, 1000);
  return d(g);
}

static int by_ref(std::mt19937& g) {
  std::uniform_int_distribution<int> d(1, 1000);
  return d(g);
}

void unseen(std::mt19937& g);  // defined in code kerncast does not read

int main() {
  float* buf;
  cudaMalloc(&buf, 1 << 20);
  std::mt19937 g(42);
  std::uniform_int_distribution<int> d(1, 1000);
  int a = d(g);
  k<<<a, 32>>>(buf, a);
  int b = d(g);
  k<<<b, 64>>>(buf, b);
  std::mt19937 g2;
  int c = g2() % 1000;
  k<<<c, 96>>>(buf, c);
  std::uniform_real_distribution<float> f(0.0f, 1.0f);
  int r = f(g) * 1000;
  k<<<r, 128>>>(buf, r);
  std::uniform_real_distribution<double> fd(2.0, 10.0);
  int rd = fd(g) * 100;
  k<<<rd, 160>>>(buf, rd);
  std::default_random_engine e(7);
  std::uniform_int_distribution<> di(1, 99);
  int x = di(e);
  k<<<x, 192>>>(buf, x);
  std::minstd_rand m(3);
  int y = m() % 1000;
  k<<<y, 224>>>(buf, y);
  std::mt19937_64 g64(1);
  std::uniform_int_distribution<long> d64(0, 1L << 40);
  int z = d64(g64) % 1000;
  k<<<z, 256>>>(buf, z);
  std::normal_distribution<double> nd(100.0, 10.0);
  int n1 = nd(g);
  int n2 = nd(g);
  k<<<n1, 288>>>(buf, n1);
  k<<<n2, 320>>>(buf, n2);
  std::bernoulli_distribution bd(0.3);
  int bs = 0;
  for (int i = 0; i < 100; i++) bs += bd(g);
  k<<<bs, 352>>>(buf, bs);
  g.seed(42);
  int a2 = d(g);
  k<<<a2, 384>>>(buf, a2);
  g.discard(5);
  int a3 = d(g);
  k<<<a3, 416>>>(buf, a3);
  std::uniform_int_distribution<unsigned> du;
  int u = du(g) % 1000;
  k<<<u, 448>>>(buf, u);
  std::exponential_distribution<double> ed(2.0);
  int ex = ed(g) * 1000;
  k<<<ex, 480>>>(buf, ex);
  std::vector<int> sizes;
  std::uniform_int_distribution<int> sd(0, 50);
  int off = 0;
  while (off < 1000) {
    sizes.push_back(off);
    off += sd(g);
  }
  int segs = sizes.size();
  k<<<segs, 512>>>(buf, segs);
  std::random_device rdev;
  std::mt19937 seeded(rdev());
  int w = d(seeded);
  k<<<w, 544>>>(buf, w);
  std::mt19937 h(42);
  std::mt19937 h2 = h;
  int c1 = d(h2);
  k<<<c1, 576>>>(buf, c1);
  int v1 = by_value(h);
  k<<<v1, 608>>>(buf, v1);
  int v2 = by_ref(h);
  k<<<v2, 640>>>(buf, v2);
  int v3 = d(h);
  k<<<v3, 672>>>(buf, v3);
  if (time(NULL) % 2) d(h);
  int v4 = d(h);
  k<<<v4, 704>>>(buf, v4);
  h.seed(7);
  int v5 = d(h);
  k<<<v5, 736>>>(buf, v5);
  unseen(h);
  int v6 = d(h);
  k<<<v6, 768>>>(buf, v6);
  h.seed(7);
  for (int i = 0; i < 100000000; i++) d(h);
  int v7 = d(h);
  k<<<v7, 800>>>(buf, v7);
  std::normal_distribution<double> nd2(50.0, 5.0);
  h.seed(3);
  int q1 = nd2(h);
  k<<<q1, 832>>>(buf, q1);
  if (time(NULL) % 2) nd2(h);
  h.seed(3);
  int q2 = nd2(h);
  k<<<q2, 864>>>(buf, q2);
  return 0;
}
