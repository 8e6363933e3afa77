// BitwiseAnd, BitwiseOr, BitwiseXor (numpy broadcasting) and BitwiseNot (18+) on the integer
// dtypes, as host kernels: the vector vocabulary's And/Or/Xor/Not are logical ops on bool
// buffers, with no bitwise form for wider integers. The reference works on the same bits through
// uint64 (two's complement), the kernel on the stored type.
#include <cstdint>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace {

enum class Bitwise : uint8_t { kAnd, kOr, kXor };

template <class T>
T apply(Bitwise op, T a, T b) {
  switch (op) {
    case Bitwise::kAnd:
      return static_cast<T>(a & b);
    case Bitwise::kOr:
      return static_cast<T>(a | b);
    default:
      return static_cast<T>(a ^ b);
  }
}

// Calls f(T{}) with T the storage type of an integer dtype.
template <class F>
void visit_integer(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::kI8:
      return f(int8_t{});
    case DType::kU8:
      return f(uint8_t{});
    case DType::kI16:
      return f(int16_t{});
    case DType::kU16:
      return f(uint16_t{});
    case DType::kI32:
      return f(int32_t{});
    case DType::kU32:
      return f(uint32_t{});
    case DType::kI64:
      return f(int64_t{});
    case DType::kU64:
      return f(uint64_t{});
    default:
      throw ShapeError(cat(op, ": dtype ", dtype_name(t), " is not an integer"));
  }
}

void binary_kernel(Bitwise op, std::span<const Tensor> in, Tensor& out) {
  const auto oa = bcast_offsets(in[0].shape(), out.shape());
  const auto ob = bcast_offsets(in[1].shape(), out.shape());
  visit_integer(out.dtype(), "Bitwise", [&](auto z) {
    using T = decltype(z);
    const T* a = in[0].data_as<T>();
    const T* b = in[1].data_as<T>();
    T* y = out.data_as<T>();
    for (size_t i = 0; i < oa.size(); ++i) y[i] = apply(op, a[oa[i]], b[ob[i]]);
  });
}

// The bits of element i as uint64 (sign-extended for signed dtypes, as two's complement).
uint64_t bits_of(const Tensor& t, int64_t i) {
  uint64_t v = 0;
  visit_integer(t.dtype(), "Bitwise", [&](auto z) {
    using T = decltype(z);
    v = static_cast<uint64_t>(static_cast<std::make_signed_t<T>>(t.data_as<T>()[i]));
  });
  return v;
}

void store_bits(Tensor& t, int64_t i, uint64_t v) {
  visit_integer(t.dtype(), "Bitwise", [&](auto z) {
    using T = decltype(z);
    t.data_as<T>()[i] = static_cast<T>(v);
  });
}

void binary_reference(Bitwise op, std::span<const Tensor> in, Tensor& out) {
  const auto oa = bcast_offsets(in[0].shape(), out.shape());
  const auto ob = bcast_offsets(in[1].shape(), out.shape());
  for (size_t i = 0; i < oa.size(); ++i)
    store_bits(out, static_cast<int64_t>(i),
               apply(op, bits_of(in[0], oa[i]), bits_of(in[1], ob[i])));
}

struct BitwiseInfo {
  const char* type;
  Bitwise op;
  const char* doc;
};

constexpr BitwiseInfo kBitwise[] = {
    {"BitwiseAnd", Bitwise::kAnd, "C = A & B (bitwise) with numpy broadcasting"},
    {"BitwiseOr", Bitwise::kOr, "C = A | B (bitwise) with numpy broadcasting"},
    {"BitwiseXor", Bitwise::kXor, "C = A ^ B (bitwise) with numpy broadcasting"},
};

}  // namespace

void register_logical_bitwise(Registry& r) {
  for (const BitwiseInfo& b : kBitwise) {
    const Bitwise op = b.op;
    r.add(def_op(b.type, 18)
              .input("A", "T")
              .input("B", "T")
              .output("C", "T")
              .type_constraint("T", ew_ints())
              .trait(kElementwise | kBroadcast | kCommutative)
              .describe(b.doc)
              .infer([](const InferContext& c) { return infer_broadcast(c); })
              .host_kernel([op](const LaunchContext&, std::span<const Tensor> in,
                                std::span<Tensor> out) { binary_kernel(op, in, out[0]); })
              .reference([op](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
                binary_reference(op, in, out[0]);
              }));
  }
  r.add(
      def_op("BitwiseNot", 18)
          .input("X", "T")
          .output("Y", "T")
          .type_constraint("T", ew_ints())
          .trait(kElementwise)
          .describe("Y = ~X (bitwise)")
          .infer(infer_unary)
          .host_kernel([](const LaunchContext&, std::span<const Tensor> in, std::span<Tensor> out) {
            visit_integer(in[0].dtype(), "BitwiseNot", [&](auto z) {
              using T = decltype(z);
              const T* x = in[0].data_as<T>();
              T* y = out[0].data_as<T>();
              for (int64_t i = 0; i < in[0].numel(); ++i) y[i] = static_cast<T>(~x[i]);
            });
          })
          .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
            for (int64_t i = 0; i < in[0].numel(); ++i) store_bits(out[0], i, ~bits_of(in[0], i));
          }));
}

}  // namespace asc
