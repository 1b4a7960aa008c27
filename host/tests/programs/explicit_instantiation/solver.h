#pragma once
template <typename T>
void run_solver(T* data, int rows, int sweeps);

namespace lin {
template <typename T>
struct Smoother {
  int width;
  void apply(T* data, int rows) const;
};
}  // namespace lin
