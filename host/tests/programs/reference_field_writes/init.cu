#include "domain.h"

Domain::Domain(int colLoc, int edge) : m_colLoc(colLoc), m_cycle(0), m_time(0.0), m_regions(4) {
  m_numNode = edge * edge * edge;
  SetupSymmetryPlanes(edge);
}

void Domain::SetupSymmetryPlanes(int edge) {
  if (m_colLoc == 0) m_symmX.resize(edge * edge);
}
