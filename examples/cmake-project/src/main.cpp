// Host side of the example: it would load scale.ptx with the CUDA driver API and launch it.
#include <cstdio>
int main() {
    std::puts("scale.ptx built; kerncast report in build/kerncast/app/kerncast-report.html");
    return 0;
}
