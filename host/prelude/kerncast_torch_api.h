// kerncast's declarations of the PyTorch C++ extension API: what `torch/extension.h` and the
// ATen, c10 and pybind11 headers an extension includes give its code.
//
// kerncast lowers an extension's `.cu` sources (and `load_inline`'s `cuda_sources`) with these
// when PyTorch's own headers are not on the include path (`-I`), so that a kernel can be
// analysed without a PyTorch install. Host code only has to compile: it is never run, so most
// of the API is declared and not defined. What device code uses is laid out as ATen lays it
// out, so that a kernel compiles to the PTX it would with PyTorch's headers:
// - c10::Half and c10::BFloat16 hold their 16 bits and compute through float;
// - TensorAccessor and the packed accessors hold a pointer, and the packed ones their sizes
//   and strides by value, indexing `data + stride * i` dimension by dimension;
// - the AT_DISPATCH_* macros instantiate their lambda for each scalar type of the set, so the
//   PTX has the kernel instances a PyTorch build compiles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define C10_HOST_DEVICE __host__ __device__
#define C10_DEVICE __device__
#define C10_HOST __host__
#define C10_RESTRICT __restrict__
#define C10_UNUSED [[maybe_unused]]
#define C10_WARP_SIZE 32
#define C10_LAUNCH_BOUNDS_0 __launch_bounds__(256, 4)
#define C10_LAUNCH_BOUNDS_1(max_threads) __launch_bounds__((max_threads))
#define C10_LAUNCH_BOUNDS_2(max_threads, min_blocks) __launch_bounds__((max_threads), (min_blocks))
#define C10_LIKELY(x) (x)
#define C10_UNLIKELY(x) (x)

// Checks stop the host function where PyTorch's would throw; their messages are not kept.
#define TORCH_CHECK(cond, ...) do { if (!(cond)) throw std::runtime_error(#cond); } while (0)
#define TORCH_CHECK_VALUE(cond, ...) TORCH_CHECK(cond)
#define TORCH_CHECK_INDEX(cond, ...) TORCH_CHECK(cond)
#define TORCH_CHECK_TYPE(cond, ...) TORCH_CHECK(cond)
#define TORCH_INTERNAL_ASSERT(cond, ...) TORCH_CHECK(cond)
#define TORCH_WARN(...) ((void)0)
#define AT_ASSERT(cond, ...) TORCH_CHECK(cond)
#define AT_ASSERTM(cond, ...) TORCH_CHECK(cond)
#define AT_ERROR(...) throw std::runtime_error("AT_ERROR")
#define C10_CUDA_CHECK(expr) ((void)(expr))
#define AT_CUDA_CHECK(expr) ((void)(expr))
#define C10_CUDA_KERNEL_LAUNCH_CHECK() ((void)0)
#define C10_CUDA_CHECK_WARN(expr) ((void)(expr))

#ifndef TORCH_EXTENSION_NAME
#define TORCH_EXTENSION_NAME kerncast_extension
#endif

namespace c10 {

enum class ScalarType : int8_t {
  Byte, Char, Short, Int, Long, Half, Float, Double,
  ComplexHalf, ComplexFloat, ComplexDouble, Bool,
  QInt8, QUInt8, QInt32, BFloat16, Undefined
};
constexpr ScalarType kByte = ScalarType::Byte, kUInt8 = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char, kInt8 = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short, kInt16 = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int, kInt32 = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long, kInt64 = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half, kFloat16 = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float, kFloat32 = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double, kFloat64 = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;

// A 16-bit float held as its bits, computing through float as c10's does.
#define KERNCAST_HALF_LIKE(Name, Native, FromFloat, ToFloat)                                   \
  struct alignas(2) Name {                                                                     \
    unsigned short x;                                                                          \
    Name() = default;                                                                          \
    C10_HOST_DEVICE Name(float v) { Native h = FromFloat(v); x = *reinterpret_cast<unsigned short*>(&h); } \
    C10_HOST_DEVICE Name(double v) : Name(static_cast<float>(v)) {}                           \
    C10_HOST_DEVICE Name(int v) : Name(static_cast<float>(v)) {}                              \
    C10_HOST_DEVICE Name(int64_t v) : Name(static_cast<float>(v)) {}                          \
    C10_HOST_DEVICE Name(const Native& h) { x = *reinterpret_cast<const unsigned short*>(&h); } \
    C10_HOST_DEVICE operator float() const { return ToFloat(*reinterpret_cast<const Native*>(&x)); } \
    C10_HOST_DEVICE operator Native() const { return *reinterpret_cast<const Native*>(&x); }  \
  };                                                                                           \
  inline C10_HOST_DEVICE Name operator+(const Name& a, const Name& b) { return static_cast<float>(a) + static_cast<float>(b); } \
  inline C10_HOST_DEVICE Name operator-(const Name& a, const Name& b) { return static_cast<float>(a) - static_cast<float>(b); } \
  inline C10_HOST_DEVICE Name operator*(const Name& a, const Name& b) { return static_cast<float>(a) * static_cast<float>(b); } \
  inline C10_HOST_DEVICE Name operator/(const Name& a, const Name& b) { return static_cast<float>(a) / static_cast<float>(b); } \
  inline C10_HOST_DEVICE Name operator-(const Name& a) { return -static_cast<float>(a); }      \
  inline C10_HOST_DEVICE Name& operator+=(Name& a, const Name& b) { a = a + b; return a; }     \
  inline C10_HOST_DEVICE Name& operator-=(Name& a, const Name& b) { a = a - b; return a; }     \
  inline C10_HOST_DEVICE Name& operator*=(Name& a, const Name& b) { a = a * b; return a; }     \
  inline C10_HOST_DEVICE Name& operator/=(Name& a, const Name& b) { a = a / b; return a; }     \
  inline C10_HOST_DEVICE float operator+(Name a, float b) { return static_cast<float>(a) + b; } \
  inline C10_HOST_DEVICE float operator-(Name a, float b) { return static_cast<float>(a) - b; } \
  inline C10_HOST_DEVICE float operator*(Name a, float b) { return static_cast<float>(a) * b; } \
  inline C10_HOST_DEVICE float operator/(Name a, float b) { return static_cast<float>(a) / b; } \
  inline C10_HOST_DEVICE float operator+(float a, Name b) { return a + static_cast<float>(b); } \
  inline C10_HOST_DEVICE float operator-(float a, Name b) { return a - static_cast<float>(b); } \
  inline C10_HOST_DEVICE float operator*(float a, Name b) { return a * static_cast<float>(b); } \
  inline C10_HOST_DEVICE float operator/(float a, Name b) { return a / static_cast<float>(b); } \
  inline C10_HOST_DEVICE float& operator+=(float& a, const Name& b) { return a += static_cast<float>(b); } \
  inline C10_HOST_DEVICE float& operator-=(float& a, const Name& b) { return a -= static_cast<float>(b); } \
  inline C10_HOST_DEVICE float& operator*=(float& a, const Name& b) { return a *= static_cast<float>(b); } \
  inline C10_HOST_DEVICE float& operator/=(float& a, const Name& b) { return a /= static_cast<float>(b); } \
  inline C10_HOST_DEVICE double operator+(Name a, double b) { return static_cast<double>(a) + b; } \
  inline C10_HOST_DEVICE double operator*(Name a, double b) { return static_cast<double>(a) * b; } \
  inline C10_HOST_DEVICE double operator+(double a, Name b) { return a + static_cast<double>(b); } \
  inline C10_HOST_DEVICE double operator*(double a, Name b) { return a * static_cast<double>(b); } \
  inline C10_HOST_DEVICE Name operator+(Name a, int b) { return a + Name(b); }                 \
  inline C10_HOST_DEVICE Name operator*(Name a, int b) { return a * Name(b); }                 \
  inline C10_HOST_DEVICE Name operator+(int a, Name b) { return Name(a) + b; }                 \
  inline C10_HOST_DEVICE Name operator*(int a, Name b) { return Name(a) * b; }

KERNCAST_HALF_LIKE(Half, __half, __float2half, __half2float)
KERNCAST_HALF_LIKE(BFloat16, __nv_bfloat16, __float2bfloat16, __bfloat162float)
#undef KERNCAST_HALF_LIKE

namespace impl {
template <ScalarType S> struct ScalarTypeToCPPType;
#define KERNCAST_SCALAR(S, T) template <> struct ScalarTypeToCPPType<ScalarType::S> { using type = T; };
KERNCAST_SCALAR(Byte, uint8_t)
KERNCAST_SCALAR(Char, int8_t)
KERNCAST_SCALAR(Short, int16_t)
KERNCAST_SCALAR(Int, int)
KERNCAST_SCALAR(Long, int64_t)
KERNCAST_SCALAR(Half, ::c10::Half)
KERNCAST_SCALAR(Float, float)
KERNCAST_SCALAR(Double, double)
KERNCAST_SCALAR(Bool, bool)
KERNCAST_SCALAR(BFloat16, ::c10::BFloat16)
#undef KERNCAST_SCALAR
}  // namespace impl

}  // namespace c10

namespace at {
// The types ATen accumulates and computes in (ATen/AccumulateType.h, ATen/OpMathType.h).
template <typename T, bool is_cuda> struct AccumulateType { using type = T; };
template <bool c> struct AccumulateType<::c10::Half, c> { using type = float; };
template <bool c> struct AccumulateType<::c10::BFloat16, c> { using type = float; };
template <bool c> struct AccumulateType<float, c> { using type = float; };
template <> struct AccumulateType<float, false> { using type = double; };
template <bool c> struct AccumulateType<int8_t, c> { using type = int64_t; };
template <bool c> struct AccumulateType<uint8_t, c> { using type = int64_t; };
template <bool c> struct AccumulateType<int16_t, c> { using type = int64_t; };
template <bool c> struct AccumulateType<int, c> { using type = int64_t; };
template <typename T, bool is_cuda> using acc_type = typename AccumulateType<T, is_cuda>::type;
template <typename T> struct OpMathType { using type = T; };
template <> struct OpMathType<::c10::Half> { using type = float; };
template <> struct OpMathType<::c10::BFloat16> { using type = float; };
template <typename T> using opmath_type = typename OpMathType<T>::type;
}  // namespace at

namespace c10 {
template <typename T> using optional = std::optional<T>;
constexpr std::nullopt_t nullopt = std::nullopt;

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
using DeviceIndex = int8_t;

struct Device {
  Device(DeviceType type, DeviceIndex index = -1);
  Device(const std::string& name);
  DeviceType type() const;
  DeviceIndex index() const;
  bool is_cuda() const;
  bool is_cpu() const;
  bool operator==(const Device& other) const;
  bool operator!=(const Device& other) const;
};

// A view of sizes or strides.
class IntArrayRef {
 public:
  IntArrayRef();
  IntArrayRef(const int64_t& one);
  IntArrayRef(std::initializer_list<int64_t> list);
  IntArrayRef(const std::vector<int64_t>& v);
  IntArrayRef(const int64_t* data, size_t length);
  IntArrayRef(const IntArrayRef& other);
  IntArrayRef& operator=(const IntArrayRef& other);
  size_t size() const;
  bool empty() const;
  const int64_t* data() const;
  const int64_t* begin() const;
  const int64_t* end() const;
  int64_t operator[](size_t i) const;
  int64_t front() const;
  int64_t back() const;
  std::vector<int64_t> vec() const;
  bool equals(IntArrayRef other) const;
  bool operator==(IntArrayRef other) const;
  bool operator!=(IntArrayRef other) const;
};
using IntList = IntArrayRef;

struct Scalar {
  Scalar();
  template <typename T> Scalar(T v);
  template <typename T> T to() const;
  double toDouble() const;
  float toFloat() const;
  int64_t toLong() const;
  int toInt() const;
  bool toBool() const;
};

struct TensorOptions {
  TensorOptions();
  TensorOptions(ScalarType dtype);
  TensorOptions(Device device);
  TensorOptions(DeviceType device);
  TensorOptions(const TensorOptions& other);
  TensorOptions& operator=(const TensorOptions& other);
  TensorOptions dtype(ScalarType dtype) const;
  template <typename T> TensorOptions dtype() const;
  ScalarType dtype() const;
  TensorOptions device(Device device) const;
  TensorOptions device(DeviceType type, DeviceIndex index = -1) const;
  Device device() const;
  TensorOptions device_index(DeviceIndex index) const;
  TensorOptions requires_grad(bool on) const;
  template <typename T> TensorOptions layout(T layout) const;
  template <typename T> TensorOptions memory_format(T format) const;
};
inline TensorOptions dtype(ScalarType t) { return TensorOptions(t); }
template <typename T> TensorOptions dtype();
inline TensorOptions device(Device d) { return TensorOptions(d); }
TensorOptions requires_grad(bool on = true);

enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

}  // namespace c10

namespace at {
using namespace c10;

// Accessors, laid out as ATen's TensorAccessor.h lays them out.
template <typename T> struct DefaultPtrTraits { typedef T* PtrType; };
template <typename T> struct RestrictPtrTraits { typedef T* __restrict__ PtrType; };

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class TensorAccessorBase {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  C10_HOST_DEVICE TensorAccessorBase(PtrType data, const index_t* sizes, const index_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}
  C10_HOST_DEVICE index_t size(index_t i) const { return sizes_[i]; }
  C10_HOST_DEVICE index_t stride(index_t i) const { return strides_[i]; }
  C10_HOST_DEVICE PtrType data() { return data_; }
  C10_HOST_DEVICE const PtrType data() const { return data_; }

 protected:
  PtrType data_;
  const index_t* sizes_;
  const index_t* strides_;
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class TensorAccessor : public TensorAccessorBase<T, N, PtrTraits, index_t> {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  C10_HOST_DEVICE TensorAccessor(PtrType data, const index_t* sizes, const index_t* strides)
      : TensorAccessorBase<T, N, PtrTraits, index_t>(data, sizes, strides) {}
  C10_HOST_DEVICE TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(
        this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1);
  }
  C10_HOST_DEVICE const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(
        this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1);
  }
};

template <typename T, template <typename U> class PtrTraits, typename index_t>
class TensorAccessor<T, 1, PtrTraits, index_t> : public TensorAccessorBase<T, 1, PtrTraits, index_t> {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  C10_HOST_DEVICE TensorAccessor(PtrType data, const index_t* sizes, const index_t* strides)
      : TensorAccessorBase<T, 1, PtrTraits, index_t>(data, sizes, strides) {}
  C10_HOST_DEVICE T& operator[](index_t i) { return this->data_[this->strides_[0] * i]; }
  C10_HOST_DEVICE const T& operator[](index_t i) const { return this->data_[this->strides_[0] * i]; }
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class GenericPackedTensorAccessorBase {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  C10_HOST GenericPackedTensorAccessorBase(PtrType data, const index_t* sizes, const index_t* strides)
      : data_(data) {
    for (size_t i = 0; i < N; ++i) {
      sizes_[i] = sizes[i];
      strides_[i] = strides[i];
    }
  }
  C10_HOST_DEVICE index_t size(index_t i) const { return sizes_[i]; }
  C10_HOST_DEVICE index_t stride(index_t i) const { return strides_[i]; }
  C10_HOST_DEVICE PtrType data() { return data_; }
  C10_HOST_DEVICE const PtrType data() const { return data_; }

 protected:
  PtrType data_;
  index_t sizes_[N];
  index_t strides_[N];
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
class GenericPackedTensorAccessor : public GenericPackedTensorAccessorBase<T, N, PtrTraits, index_t> {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  C10_HOST GenericPackedTensorAccessor(PtrType data, const index_t* sizes, const index_t* strides)
      : GenericPackedTensorAccessorBase<T, N, PtrTraits, index_t>(data, sizes, strides) {}
  C10_DEVICE TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(
        this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1);
  }
  C10_DEVICE const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(
        this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1);
  }
};

template <typename T, template <typename U> class PtrTraits, typename index_t>
class GenericPackedTensorAccessor<T, 1, PtrTraits, index_t>
    : public GenericPackedTensorAccessorBase<T, 1, PtrTraits, index_t> {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  C10_HOST GenericPackedTensorAccessor(PtrType data, const index_t* sizes, const index_t* strides)
      : GenericPackedTensorAccessorBase<T, 1, PtrTraits, index_t>(data, sizes, strides) {}
  C10_DEVICE T& operator[](index_t i) { return this->data_[this->strides_[0] * i]; }
  C10_DEVICE const T& operator[](index_t i) const { return this->data_[this->strides_[0] * i]; }
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
          typename index_t = int64_t>
using PackedTensorAccessor = GenericPackedTensorAccessor<T, N, PtrTraits, index_t>;

struct Generator {};

class Tensor;
using TensorList = std::vector<Tensor>;

class Tensor {
 public:
  Tensor();
  // Declared, not defined: kerncast's host reader models a tensor's copies and assignments.
  Tensor(const Tensor& other);
  Tensor(Tensor&& other);
  Tensor& operator=(const Tensor& other);
  Tensor& operator=(Tensor&& other);
  int64_t numel() const;
  int64_t size(int64_t dim) const;
  IntArrayRef sizes() const;
  int64_t stride(int64_t dim) const;
  IntArrayRef strides() const;
  int64_t dim() const;
  int64_t ndimension() const;
  int64_t element_size() const;
  size_t nbytes() const;
  int64_t storage_offset() const;
  bool defined() const;
  bool is_cuda() const;
  bool is_cpu() const;
  bool is_contiguous(MemoryFormat format = MemoryFormat::Contiguous) const;
  bool requires_grad() const;
  ScalarType scalar_type() const;
  ScalarType dtype() const;
  TensorOptions options() const;
  Device device() const;
  int64_t get_device() const;

  void* data_ptr() const;
  template <typename T> T* data_ptr() const;
  template <typename T> T* data() const;
  template <typename T> const T* const_data_ptr() const;
  template <typename T> T* mutable_data_ptr() const;
  template <typename T> T item() const;
  Scalar item() const;

  template <typename T, size_t N> TensorAccessor<T, N> accessor() const&;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
            typename index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> generic_packed_accessor() const&;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits,
            typename index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> packed_accessor() const&;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const&;
  template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const&;

  // shapes
  Tensor view(IntArrayRef size) const;
  Tensor reshape(IntArrayRef size) const;
  Tensor expand(IntArrayRef size, bool implicit = false) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor repeat(IntArrayRef repeats) const;
  Tensor new_empty(IntArrayRef size, TensorOptions options = {}) const;
  Tensor new_zeros(IntArrayRef size, TensorOptions options = {}) const;
  Tensor new_full(IntArrayRef size, Scalar fill, TensorOptions options = {}) const;
  // everything else that gives a tensor, whatever its arguments
  template <typename... A> Tensor contiguous(A&&...) const;
  template <typename... A> Tensor to(A&&...) const;
  template <typename... A> Tensor cuda(A&&...) const;
  template <typename... A> Tensor cpu(A&&...) const;
  template <typename... A> Tensor type_as(A&&...) const;
  template <typename... A> Tensor transpose(A&&...) const;
  template <typename... A> Tensor t(A&&...) const;
  template <typename... A> Tensor narrow(A&&...) const;
  template <typename... A> Tensor select(A&&...) const;
  template <typename... A> Tensor slice(A&&...) const;
  template <typename... A> Tensor index(A&&...) const;
  template <typename... A> Tensor index_select(A&&...) const;
  template <typename... A> Tensor clone(A&&...) const;
  template <typename... A> Tensor detach(A&&...) const;
  template <typename... A> Tensor expand_as(A&&...) const;
  template <typename... A> Tensor view_as(A&&...) const;
  template <typename... A> Tensor flatten(A&&...) const;
  template <typename... A> Tensor squeeze(A&&...) const;
  template <typename... A> Tensor unsqueeze(A&&...) const;
  template <typename... A> Tensor sum(A&&...) const;
  template <typename... A> Tensor mean(A&&...) const;
  template <typename... A> Tensor abs(A&&...) const;
  template <typename... A> Tensor sqrt(A&&...) const;
  template <typename... A> Tensor exp(A&&...) const;
  template <typename... A> Tensor matmul(A&&...) const;
  template <typename... A> Tensor addmm(A&&...) const;
  template <typename... A> Tensor log(A&&...) const;
  template <typename... A> Tensor pow(A&&...) const;
  template <typename... A> Tensor clamp(A&&...) const;
  template <typename... A> Tensor max(A&&...) const;
  template <typename... A> Tensor min(A&&...) const;
  template <typename... A> Tensor sigmoid(A&&...) const;
  template <typename... A> Tensor tanh(A&&...) const;
  template <typename... A> Tensor relu(A&&...) const;
  template <typename... A> Tensor softmax(A&&...) const;
  template <typename... A> Tensor masked_fill(A&&...) const;
  template <typename... A> std::vector<Tensor> chunk(A&&...) const;
  template <typename... A> std::vector<Tensor> split(A&&...) const;
  template <typename... A> Tensor mm(A&&...) const;
  template <typename... A> Tensor fill_(A&&...) const;
  template <typename... A> Tensor zero_(A&&...) const;
  template <typename... A> Tensor copy_(A&&...) const;
  template <typename... A> Tensor add_(A&&...) const;
  template <typename... A> Tensor sub_(A&&...) const;
  template <typename... A> Tensor mul_(A&&...) const;
  template <typename... A> Tensor div_(A&&...) const;
  template <typename... A> Tensor resize_(A&&...) const;
  template <typename... A> Tensor set_requires_grad(A&&...) const;
  Tensor operator[](int64_t i) const;
  Tensor operator-() const;
  Tensor& operator+=(const Tensor& other);
  Tensor& operator-=(const Tensor& other);
  Tensor& operator*=(const Tensor& other);
  Tensor& operator/=(const Tensor& other);
  Tensor& operator+=(Scalar other);
  Tensor& operator*=(Scalar other);
};

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, Scalar b);
Tensor operator-(const Tensor& a, Scalar b);
Tensor operator*(const Tensor& a, Scalar b);
Tensor operator/(const Tensor& a, Scalar b);
Tensor operator*(Scalar a, const Tensor& b);

Tensor empty(IntArrayRef size, TensorOptions options = {});
Tensor zeros(IntArrayRef size, TensorOptions options = {});
Tensor ones(IntArrayRef size, TensorOptions options = {});
Tensor rand(IntArrayRef size, TensorOptions options = {});
Tensor randn(IntArrayRef size, TensorOptions options = {});
Tensor full(IntArrayRef size, Scalar fill, TensorOptions options = {});
Tensor empty_strided(IntArrayRef size, IntArrayRef stride, TensorOptions options = {});
Tensor arange(Scalar end, TensorOptions options = {});
Tensor arange(Scalar start, Scalar end, TensorOptions options = {});
template <typename... A> Tensor empty_like(const Tensor& t, A&&...);
template <typename... A> Tensor zeros_like(const Tensor& t, A&&...);
template <typename... A> Tensor ones_like(const Tensor& t, A&&...);
template <typename... A> Tensor full_like(const Tensor& t, A&&...);
template <typename... A> Tensor rand_like(const Tensor& t, A&&...);
template <typename... A> Tensor randn_like(const Tensor& t, A&&...);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
template <typename... A> Tensor matmul(A&&...);
template <typename... A> Tensor mm(A&&...);
template <typename... A> Tensor bmm(A&&...);
template <typename... A> Tensor relu(A&&...);
template <typename... A> Tensor sigmoid(A&&...);
template <typename... A> Tensor tanh(A&&...);
template <typename... A> Tensor exp(A&&...);
template <typename... A> Tensor sum(A&&...);
template <typename... A> Tensor mean(A&&...);
template <typename... A> Tensor softmax(A&&...);
template <typename... A> Tensor where(A&&...);
template <typename... A> Tensor addmm(A&&...);
template <typename... A> Tensor addmv(A&&...);
template <typename... A> Tensor baddbmm(A&&...);
template <typename... A> Tensor linear(A&&...);
template <typename... A> Tensor einsum(A&&...);
template <typename... A> Tensor log(A&&...);
template <typename... A> Tensor pow(A&&...);
template <typename... A> Tensor clamp(A&&...);
template <typename... A> Tensor max(A&&...);
template <typename... A> Tensor min(A&&...);
template <typename... A> Tensor gelu(A&&...);
template <typename... A> Tensor silu(A&&...);
template <typename... A> Tensor layer_norm(A&&...);
template <typename... A> Tensor dropout(A&&...);
template <typename... A> Tensor transpose(A&&...);
template <typename... A> Tensor flatten(A&&...);
template <typename... A> std::vector<Tensor> chunk(A&&...);
template <typename... A> std::vector<Tensor> split(A&&...);

std::optional<Device> device_of(const Tensor& t);

namespace cuda {
cudaDeviceProp* getCurrentDeviceProperties();
cudaDeviceProp* getDeviceProperties(int64_t device);
int warp_size();
}  // namespace cuda
}  // namespace at

namespace c10 {
namespace cuda {
class CUDAStream {
 public:
  cudaStream_t stream() const;
  operator cudaStream_t() const;
  Device device() const;
  DeviceIndex device_index() const;
  void synchronize() const;
};
CUDAStream getCurrentCUDAStream(DeviceIndex device = -1);
CUDAStream getDefaultCUDAStream(DeviceIndex device = -1);
CUDAStream getStreamFromPool(bool high_priority = false, DeviceIndex device = -1);
void device_synchronize();

struct CUDAGuard {
  explicit CUDAGuard(Device device);
  explicit CUDAGuard(DeviceIndex index);
  void set_device(Device device);
};
struct OptionalCUDAGuard {
  OptionalCUDAGuard();
  explicit OptionalCUDAGuard(std::optional<Device> device);
  explicit OptionalCUDAGuard(Device device);
  explicit OptionalCUDAGuard(DeviceIndex index);
  void set_device(Device device);
  void reset();
};
struct CUDAStreamGuard {
  explicit CUDAStreamGuard(CUDAStream stream);
};
}  // namespace cuda
}  // namespace c10

namespace at {
namespace cuda {
using namespace ::c10::cuda;
}  // namespace cuda
}  // namespace at

namespace torch {
using namespace at;
namespace indexing {
struct Slice {
  Slice();
  template <typename... A> Slice(A&&...);
};
constexpr std::nullopt_t None = std::nullopt;
}  // namespace indexing

class Library {
 public:
  template <typename... A> Library& def(A&&...);
  template <typename... A> Library& impl(A&&...);
};
}  // namespace torch

namespace pybind11 {
struct arg_v {};
struct arg {
  explicit arg(const char* name);
  template <typename T> arg_v operator=(T&& value) const;
  arg& noconvert(bool on = true);
  arg& none(bool on = true);
};
struct call_guard_base {};
template <typename... T> struct call_guard : call_guard_base {};
struct gil_scoped_release {
  gil_scoped_release();
};
class module_ {
 public:
  template <typename... A> module_& def(const char* name, A&&... args);
  template <typename... A> module_ def_submodule(A&&...);
  template <typename T> module_& attr(T&&);
  const char* doc();
};
using module = module_;
}  // namespace pybind11
namespace py = pybind11;

// The binding functions are declared and defined, never called: their `m.def(…)` lines
// type-check as they would.
#define PYBIND11_MODULE(name, variable)                                    \
  [[maybe_unused]] static void kerncast_pybind11_##name(::pybind11::module_& variable)
#define TORCH_LIBRARY(ns, m) [[maybe_unused]] static void kerncast_torch_library_##ns(::torch::Library& m)
#define TORCH_LIBRARY_FRAGMENT(ns, m) TORCH_LIBRARY(ns, m)
#define TORCH_LIBRARY_IMPL(ns, k, m) \
  [[maybe_unused]] static void kerncast_torch_library_impl_##ns##_##k(::torch::Library& m)

// AT_DISPATCH_*: the lambda once per scalar type of the set, as ATen's Dispatch.h does.
#define AT_DISPATCH_CASE(enum_type, ...)                                        \
  case enum_type: {                                                             \
    using scalar_t [[maybe_unused]] =                                           \
        typename ::c10::impl::ScalarTypeToCPPType<enum_type>::type;             \
    return __VA_ARGS__();                                                       \
  }
#define AT_DISPATCH_SWITCH(TYPE, NAME, ...)                                     \
  [&] {                                                                         \
    const ::c10::ScalarType kerncast_dispatch_type = (TYPE);                    \
    switch (kerncast_dispatch_type) {                                           \
      __VA_ARGS__                                                               \
      default:                                                                  \
        throw std::runtime_error(NAME);                                         \
    }                                                                           \
  }()
#define AT_DISPATCH_CASE_FLOATING_TYPES(...)                                    \
  AT_DISPATCH_CASE(::c10::ScalarType::Double, __VA_ARGS__)                      \
  AT_DISPATCH_CASE(::c10::ScalarType::Float, __VA_ARGS__)
#define AT_DISPATCH_CASE_INTEGRAL_TYPES(...)                                    \
  AT_DISPATCH_CASE(::c10::ScalarType::Byte, __VA_ARGS__)                        \
  AT_DISPATCH_CASE(::c10::ScalarType::Char, __VA_ARGS__)                        \
  AT_DISPATCH_CASE(::c10::ScalarType::Int, __VA_ARGS__)                         \
  AT_DISPATCH_CASE(::c10::ScalarType::Long, __VA_ARGS__)                        \
  AT_DISPATCH_CASE(::c10::ScalarType::Short, __VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES(...)                                         \
  AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__)                                  \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)
#define AT_DISPATCH_CASE_REDUCED_FLOATING_TYPES(...)                            \
  AT_DISPATCH_CASE(::c10::ScalarType::Half, __VA_ARGS__)                        \
  AT_DISPATCH_CASE(::c10::ScalarType::BFloat16, __VA_ARGS__)

#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)                             \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...)                    \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)   \
                     AT_DISPATCH_CASE(::c10::ScalarType::Half, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND(S1, TYPE, NAME, ...)                     \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)   \
                     AT_DISPATCH_CASE(S1, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND2(S1, S2, TYPE, NAME, ...)                \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)   \
                     AT_DISPATCH_CASE(S1, __VA_ARGS__)                          \
                     AT_DISPATCH_CASE(S2, __VA_ARGS__))
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...)                     \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_REDUCED_FLOATING_TYPES(__VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...)                             \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...)                                  \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND(S1, TYPE, NAME, ...)                          \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__)        \
                     AT_DISPATCH_CASE(S1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND2(S1, S2, TYPE, NAME, ...)                     \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__)        \
                     AT_DISPATCH_CASE(S1, __VA_ARGS__)                          \
                     AT_DISPATCH_CASE(S2, __VA_ARGS__))
