/* kerncast-expect
args: -p=1000
37: compute(int) <<<(4096,1,1), (64,1,1), 0>>> x1000 {n=7}
42: other(int) <<<(2,1,1), (32,1,1), 0>>> x1 {n=1}
46: other(int) <<<(12,1,1), (1,1,1), 0>>> x1 {n=12}
*/
// An option parser that converts an option's text with a string stream and checks that the
// whole text was consumed (`ss.fail() || !ss.eof()`): reading the number "1000" to the end
// of the text sets eof and not fail, so the program goes on; "12 " stops at the space,
// before the end, so that check fails for it. getline's last line, with no newline after
// it, also reaches the end.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <cuda_runtime.h>

__global__ void compute(int n) {}
__global__ void other(int n) {}

template <typename T>
T convert(const std::string& text) {
  std::stringstream ss;
  ss << text;
  T v;
  ss >> v;
  if (ss.fail() || !ss.eof()) {
    fprintf(stderr, "bad value '%s'\n", text.c_str());
    exit(1);
  }
  return v;
}

int main(int argc, char** argv) {
  std::string arg = argv[1];
  unsigned repeat = convert<unsigned>(arg.substr(3));
  for (unsigned i = 0; i < repeat; i++) compute<<<4096, 64>>>(7);
  std::istringstream lines("a\nb");
  std::string line;
  int n = 0;
  while (std::getline(lines, line)) n++;
  other<<<n, 32>>>(lines.eof());
  std::stringstream t("12 ");
  int v;
  t >> v;
  if (!t.eof()) other<<<v, 1>>>(v);
  return 0;
}
