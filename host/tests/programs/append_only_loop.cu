/* kerncast-expect
35: insert(KeyValue*, unsigned int) <<<(256,1,1), (256,1,1), 0>>> x16 {kvs=ptr n=65536}
*/
// A loop too long to follow that only appends to a vector, once per iteration: the vector
// ends 2^20 long whatever it appends (random pairs, unknown), so the batch size taken from
// its size is known: 2^20 / 16 = 65536 per batch, 256 blocks of 256.
#include <cstdint>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

struct KeyValue {
  uint32_t key, value;
};

__global__ void insert(KeyValue* kvs, unsigned n) {}

std::vector<KeyValue> generate(uint32_t n) {
  std::vector<KeyValue> kvs;
  kvs.reserve(n);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t a = rand();
    uint32_t b = rand();
    kvs.push_back(KeyValue{a, b});
  }
  return kvs;
}

int main() {
  std::vector<KeyValue> kvs = generate(1 << 20);
  const uint32_t batches = 16;
  uint32_t per_batch = (uint32_t)kvs.size() / batches;
  KeyValue* d;
  cudaMalloc(&d, sizeof(KeyValue) * per_batch);
  for (uint32_t i = 0; i < batches; i++) insert<<<(per_batch + 255) / 256, 256>>>(d, per_batch);
  return 0;
}
