#include <vector>

// What a run counts, changed only through a reference bound to a field.
struct Stats {
  int steps;
  int blocks;
};

// A mesh whose constructor is in another file, as in LULESH (`Domain` in lulesh-init.cc).
class Domain {
 public:
  Domain(int colLoc, int edge);
  bool symmXempty() { return m_symmX.empty(); }
  int numNode() { return m_numNode; }
  int& cycle() { return m_cycle; }
  double& time() { return m_time; }
  std::vector<int> m_symmX;
  int m_colLoc;
  int m_numNode;
  int m_cycle;
  double m_time;
  int m_regions;

 private:
  void SetupSymmetryPlanes(int edge);
};
