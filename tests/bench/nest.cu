// Affine loop nests of depth 1 to 6 for `cargo xtask bench` (issue 50): what counting with a
// launch costs as the nest deepens. Every loop is kept (`#pragma unroll 1`), one level is
// triangular, and the load's address is affine in every counter. `nest.ptx` is this file
// lowered by `kerncast lower --frontend nvcc` (regenerate it with that command).

// kerncast: workload n=24 grid=(n*32/128) block=128
extern "C" __global__ void nest1(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 32 * n)
        return;
    float s = 0.0f;
    #pragma unroll 1
    for (int k1 = 0; k1 < n; k1++)
        s += b[i + 32 * k1];
    a[i] = s;
}

// kerncast: workload n=24 grid=(n*32/128) block=128
extern "C" __global__ void nest2(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 32 * n)
        return;
    float s = 0.0f;
    #pragma unroll 1
    for (int k1 = 0; k1 < n; k1++)
        #pragma unroll 1
        for (int k2 = 0; k2 <= k1; k2++)
            s += b[i + 32 * k1 + 64 * k2];
    a[i] = s;
}

// kerncast: workload n=24 grid=(n*32/128) block=128
extern "C" __global__ void nest3(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 32 * n)
        return;
    float s = 0.0f;
    #pragma unroll 1
    for (int k1 = 0; k1 < n; k1++)
        #pragma unroll 1
        for (int k2 = 0; k2 <= k1; k2++)
            #pragma unroll 1
            for (int k3 = 0; k3 < n; k3++)
                s += b[i + 32 * k1 + 64 * k2 + 128 * k3];
    a[i] = s;
}

// kerncast: workload n=24 grid=(n*32/128) block=128
extern "C" __global__ void nest4(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 32 * n)
        return;
    float s = 0.0f;
    #pragma unroll 1
    for (int k1 = 0; k1 < n; k1++)
        #pragma unroll 1
        for (int k2 = 0; k2 <= k1; k2++)
            #pragma unroll 1
            for (int k3 = 0; k3 < n; k3++)
                #pragma unroll 1
                for (int k4 = 0; k4 < n; k4++)
                    s += b[i + 32 * k1 + 64 * k2 + 128 * k3 + 256 * k4];
    a[i] = s;
}

// kerncast: workload n=24 grid=(n*32/128) block=128
extern "C" __global__ void nest5(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 32 * n)
        return;
    float s = 0.0f;
    #pragma unroll 1
    for (int k1 = 0; k1 < n; k1++)
        #pragma unroll 1
        for (int k2 = 0; k2 <= k1; k2++)
            #pragma unroll 1
            for (int k3 = 0; k3 < n; k3++)
                #pragma unroll 1
                for (int k4 = 0; k4 < n; k4++)
                    #pragma unroll 1
                    for (int k5 = 0; k5 < n; k5++)
                        s += b[i + 32 * k1 + 64 * k2 + 128 * k3 + 256 * k4 + 512 * k5];
    a[i] = s;
}

// kerncast: workload n=24 grid=(n*32/128) block=128
extern "C" __global__ void nest6(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 32 * n)
        return;
    float s = 0.0f;
    #pragma unroll 1
    for (int k1 = 0; k1 < n; k1++)
        #pragma unroll 1
        for (int k2 = 0; k2 <= k1; k2++)
            #pragma unroll 1
            for (int k3 = 0; k3 < n; k3++)
                #pragma unroll 1
                for (int k4 = 0; k4 < n; k4++)
                    #pragma unroll 1
                    for (int k5 = 0; k5 < n; k5++)
                        #pragma unroll 1
                        for (int k6 = 0; k6 < n; k6++)
                            s += b[i + 32 * k1 + 64 * k2 + 128 * k3 + 256 * k4 + 512 * k5 + 1024 * k6];
    a[i] = s;
}

// kerncast: workload n=16 grid=(n*32/128) block=128
extern "C" __global__ void box1(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 32 * n)
        return;
    float s = 0.0f;
    #pragma unroll 1
    for (int k1 = 0; k1 < n; k1++)
        s += b[(k1) * 32 * n + i];
    a[i] = s;
}

// kerncast: workload n=16 grid=(n*32/128) block=128
extern "C" __global__ void box2(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 32 * n)
        return;
    float s = 0.0f;
    #pragma unroll 1
    for (int k1 = 0; k1 < n; k1++)
        #pragma unroll 1
        for (int k2 = 0; k2 < n; k2++)
            s += b[((k1) * n + k2) * 32 * n + i];
    a[i] = s;
}

// kerncast: workload n=16 grid=(n*32/128) block=128
extern "C" __global__ void box3(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 32 * n)
        return;
    float s = 0.0f;
    #pragma unroll 1
    for (int k1 = 0; k1 < n; k1++)
        #pragma unroll 1
        for (int k2 = 0; k2 < n; k2++)
            #pragma unroll 1
            for (int k3 = 0; k3 < n; k3++)
                s += b[(((k1) * n + k2) * n + k3) * 32 * n + i];
    a[i] = s;
}

// kerncast: workload n=16 grid=(n*32/128) block=128
extern "C" __global__ void box4(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 32 * n)
        return;
    float s = 0.0f;
    #pragma unroll 1
    for (int k1 = 0; k1 < n; k1++)
        #pragma unroll 1
        for (int k2 = 0; k2 < n; k2++)
            #pragma unroll 1
            for (int k3 = 0; k3 < n; k3++)
                #pragma unroll 1
                for (int k4 = 0; k4 < n; k4++)
                    s += b[((((k1) * n + k2) * n + k3) * n + k4) * 32 * n + i];
    a[i] = s;
}

// kerncast: workload n=16 grid=(n*32/128) block=128
extern "C" __global__ void box5(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 32 * n)
        return;
    float s = 0.0f;
    #pragma unroll 1
    for (int k1 = 0; k1 < n; k1++)
        #pragma unroll 1
        for (int k2 = 0; k2 < n; k2++)
            #pragma unroll 1
            for (int k3 = 0; k3 < n; k3++)
                #pragma unroll 1
                for (int k4 = 0; k4 < n; k4++)
                    #pragma unroll 1
                    for (int k5 = 0; k5 < n; k5++)
                        s += b[(((((k1) * n + k2) * n + k3) * n + k4) * n + k5) * 32 * n + i];
    a[i] = s;
}

// kerncast: workload n=16 grid=(n*32/128) block=128
extern "C" __global__ void box6(float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 32 * n)
        return;
    float s = 0.0f;
    #pragma unroll 1
    for (int k1 = 0; k1 < n; k1++)
        #pragma unroll 1
        for (int k2 = 0; k2 < n; k2++)
            #pragma unroll 1
            for (int k3 = 0; k3 < n; k3++)
                #pragma unroll 1
                for (int k4 = 0; k4 < n; k4++)
                    #pragma unroll 1
                    for (int k5 = 0; k5 < n; k5++)
                        #pragma unroll 1
                        for (int k6 = 0; k6 < n; k6++)
                            s += b[((((((k1) * n + k2) * n + k3) * n + k4) * n + k5) * n + k6) * 32 * n + i];
    a[i] = s;
}
