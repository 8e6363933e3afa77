// OnnxWriter: builds a ModelProto node by node and stores seeded random weights, inline
// (raw_data) or streamed into one external data file.
//
// Weight values: weight `name` is drawn from xoshiro256** streams seeded by (seed, name, chunk)
// with polar Box-Muller normals (draw_normals), so a tensor's values depend only on the seed and
// its name — not on the dtype (f16/bf16 round the same f32 draws), the layer count, or the order of
// creation.
//
// External data layout (`model.onnx.data` next to the model): tensors in creation order, each at
// an offset aligned to kExternalAlign (4096, a page) — the importer maps the file once and views
// every tensor in place when its offset is a multiple of its element size; page alignment also
// keeps every weight's first byte on a cache line and a page. Values are generated and written in
// chunks, so no weight is held whole in memory (except the source of a transposed copy).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace asc::models {

// String building without `"literal" + std::string` (GCC 12 -Wrestrict false positives); the
// models room has no registry, so this is its own small copy of the idea of asc::cat.
template <typename... A>
std::string str_cat(const A&... parts) {
  std::string s;
  const auto add = [&s](const auto& p) {
    if constexpr (std::is_arithmetic_v<std::decay_t<decltype(p)>>)
      s += std::to_string(p);
    else
      s += std::string_view(p);
  };
  (add(parts), ...);
  return s;
}

enum class ElemType { kF32, kF16, kBF16 };

const char* elem_name(ElemType t);
int32_t elem_onnx(ElemType t);  // onnx::TensorProto::DataType
size_t elem_size(ElemType t);

// f32 -> f16 / bf16 bits, round to nearest even (NaN stays NaN, overflow goes to infinity).
uint16_t f32_to_f16(float f);
uint16_t f32_to_bf16(float f);
float f16_to_f32(uint16_t h);
float bf16_to_f32(uint16_t h);

// A seeded normal stream (xoshiro256** + Box-Muller).
class NormalRng {
 public:
  explicit NormalRng(uint64_t seed);
  double next();

 private:
  uint64_t next_u64();
  uint64_t s_[4];
  double spare_ = 0;
  bool has_spare_ = false;
};

// FNV-1a of the name mixed with the seed: the stream seed of one weight.
uint64_t weight_seed(uint64_t seed, const std::string& name);

// Values of a weight's stream: element i is the (i % kNormalChunk)-th draw of chunk
// i / kNormalChunk, whose generator is seeded by (stream, chunk) — so chunks are drawn in
// parallel (one thread per core) and the values do not depend on the thread count.
inline constexpr uint64_t kNormalChunk = uint64_t{1} << 16;
// out[0, n) = mean + std * normal for elements [first, first + n); first % kNormalChunk == 0.
void draw_normals(uint64_t stream, uint64_t first, size_t n, float mean, float std, float* out);

// A dim of a graph input or output: a number or a symbol.
struct IoDim {
  IoDim(int64_t v) : value(v) {}  // NOLINT: implicit on purpose
  IoDim(const char* s) : symbol(s) {}
  IoDim(std::string s) : symbol(std::move(s)) {}
  int64_t value = -1;
  std::string symbol;
};

// A node attribute.
struct Attr {
  static Attr i(std::string name, int64_t v);
  static Attr f(std::string name, float v);
  static Attr ints(std::string name, std::vector<int64_t> v);
  static Attr s(std::string name, std::string v);
  static Attr g(std::string name, onnx::GraphProto v);  // a subgraph (If's branches, Loop's body)
  onnx::AttributeProto proto;
};

class OnnxWriter {
 public:
  static constexpr uint64_t kExternalAlign = 4096;
  static constexpr uint64_t kDrawBlock = 64 * kNormalChunk;  // elements drawn per emit

  struct Options {
    int opset = 17;
    uint64_t seed = 0;
    bool dry_run = false;       // count weight bytes, generate nothing
    std::string data_path;      // external data file to write; empty = weights inline
    std::string data_location;  // its name as written in the model (relative to the model)
    // With a data file: weights get their places in it but no values; the file is extended to
    // its full size without writing (sparse, zeros). For shape-only uses (asc-run
    // --timing-only) of models too large to generate.
    bool shape_only = false;
    std::string producer = "asc-make-qwen";
  };

  explicit OnnxWriter(Options options);
  ~OnnxWriter();
  OnnxWriter(const OnnxWriter&) = delete;
  OnnxWriter& operator=(const OnnxWriter&) = delete;

  onnx::ModelProto& model() { return model_; }
  onnx::GraphProto& graph() { return *model_.mutable_graph(); }
  int opset() const { return options_.opset; }
  void add_opset(const std::string& domain, int version);

  // A node named `name` with one output "`name`_output_0", returned.
  std::string op(const std::string& type, const std::string& name,
                 const std::vector<std::string>& inputs, const std::vector<Attr>& attrs = {},
                 const std::string& domain = "");
  // A node with explicit output names ("" leaves an optional output out).
  void op_to(const std::string& type, const std::string& name,
             const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
             const std::vector<Attr>& attrs = {}, const std::string& domain = "");

  // Small constants, always inline. `name` must be unique; the name is returned.
  std::string const_i64(const std::string& name, const std::vector<int64_t>& values,
                        bool scalar = false);
  std::string const_scalar(const std::string& name, ElemType t, float v);
  // A constant of `t` from f32 values (rounded for f16/bf16), inline.
  std::string const_values(const std::string& name, ElemType t, const std::vector<int64_t>& dims,
                           const std::vector<float>& values);

  // A weight of normal(mean, std) values (external when the writer has a data file).
  std::string weight(const std::string& name, ElemType t, const std::vector<int64_t>& dims,
                     float mean, float std);
  // A [cols, rows] weight holding the transpose of the [rows, cols] values that
  // weight(source, ...) with the same mean/std draws (a tied lm_head).
  std::string weight_transposed(const std::string& name, const std::string& source, ElemType t,
                                int64_t rows, int64_t cols, float mean, float std);

  void input(const std::string& name, int32_t elem, const std::vector<IoDim>& dims);
  void output(const std::string& name, int32_t elem, const std::vector<IoDim>& dims);

  uint64_t weight_bytes() const { return weight_bytes_; }
  // Serialises the model to `path` and finishes the data file. Throws std::runtime_error.
  void save(const std::string& path);

 private:
  onnx::TensorProto& new_tensor(const std::string& name, int32_t elem,
                                const std::vector<int64_t>& dims);
  // Appends values (as f32) converted to `t`, to the tensor's raw_data or the data file.
  void emit(onnx::TensorProto& tp, ElemType t, const float* v, size_t n);
  void begin_external(onnx::TensorProto& tp, uint64_t bytes);

  Options options_;
  onnx::ModelProto model_;
  std::FILE* data_ = nullptr;
  uint64_t data_offset_ = 0;
  uint64_t weight_bytes_ = 0;
  std::vector<uint8_t> scratch_;
};

}  // namespace asc::models
