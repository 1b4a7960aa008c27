// while_collatz: steps[i] = number of Collatz steps (n -> n/2 or 3n+1) until x[i] reaches 1;
// a while loop whose trip count depends on the data.
// kerncast: workload n=65536 grid=(n/256) block=256
extern "C" __global__ void while_collatz(int n, const unsigned *x, unsigned *steps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned v = x[i];
    unsigned s = 0;
    while (v > 1u) {
        v = (v & 1u) ? 3u * v + 1u : v >> 1;
        ++s;
    }
    steps[i] = s;
}
