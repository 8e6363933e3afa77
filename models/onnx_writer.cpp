#include "models/onnx_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace asc::models {

const char* elem_name(ElemType t) {
  switch (t) {
    case ElemType::kF32:
      return "fp32";
    case ElemType::kF16:
      return "fp16";
    case ElemType::kBF16:
      return "bf16";
  }
  return "?";
}

int32_t elem_onnx(ElemType t) {
  switch (t) {
    case ElemType::kF32:
      return onnx::TensorProto::FLOAT;
    case ElemType::kF16:
      return onnx::TensorProto::FLOAT16;
    case ElemType::kBF16:
      return onnx::TensorProto::BFLOAT16;
  }
  return onnx::TensorProto::UNDEFINED;
}

size_t elem_size(ElemType t) {
  return t == ElemType::kF32 ? 4 : 2;
}

namespace {

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

uint16_t f32_to_f16(float f) {
  const uint32_t x = bits_of(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520: infinity
  if (a >= 0x38800000u) {                                              // normal half
    const uint32_t mant = a & 0x7fffffu;
    uint32_t h = (((a >> 23) - 112u) << 10) | (mant >> 13);
    const uint32_t rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry moves into the exponent
    return static_cast<uint16_t>(sign | h);
  }
  if (a <= 0x33000000u) return static_cast<uint16_t>(sign);  // <= 2^-25 rounds to zero
  const uint32_t e = a >> 23;                                // subnormal half
  const uint32_t mant = (a & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126u - e;
  uint32_t h = mant >> shift;
  const uint32_t rest = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
  if (rest > half || (rest == half && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

uint16_t f32_to_bf16(float f) {
  const uint32_t x = bits_of(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    const float v = std::ldexp(static_cast<float>(m), -24);
    return sign ? -v : v;
  }
  if (e == 31) return float_of(sign | 0x7f800000u | (m << 13));
  return float_of(sign | ((e + 112u) << 23) | (m << 13));
}

float bf16_to_f32(uint16_t h) {
  return float_of(static_cast<uint32_t>(h) << 16);
}

NormalRng::NormalRng(uint64_t seed) {
  for (uint64_t& s : s_) {  // splitmix64
    seed += 0x9e3779b97f4a7c15ull;
    uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    s = z ^ (z >> 31);
  }
}

uint64_t NormalRng::next_u64() {
  const auto rotl = [](uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

// Marsaglia's polar form of Box-Muller: two normals per accepted point of the unit disc.
double NormalRng::next() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u, v, q;
  do {
    u = static_cast<double>(next_u64() >> 11) * 0x1.0p-52 - 1.0;  // [-1, 1)
    v = static_cast<double>(next_u64() >> 11) * 0x1.0p-52 - 1.0;
    q = u * u + v * v;
  } while (q >= 1.0 || q == 0.0);
  const double f = std::sqrt(-2.0 * std::log(q) / q);
  spare_ = v * f;
  has_spare_ = true;
  return u * f;
}

void draw_normals(uint64_t stream, uint64_t first, size_t n, float mean, float std, float* out) {
  const auto fill = [&](uint64_t chunk, float* dst, size_t count) {
    NormalRng rng(stream ^ (chunk * 0xd1b54a32d192ed03ull));
    for (size_t i = 0; i < count; ++i) dst[i] = static_cast<float>(mean + std * rng.next());
  };
  if (first % kNormalChunk != 0) throw std::logic_error("draw_normals: unaligned start");
  const size_t chunks = (n + kNormalChunk - 1) / kNormalChunk;
  const size_t workers =
      std::min<size_t>(chunks, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w)
    pool.emplace_back([&, w] {
      for (size_t c = w; c < chunks; c += workers)
        fill(first / kNormalChunk + c, out + c * kNormalChunk,
             std::min<size_t>(kNormalChunk, n - c * kNormalChunk));
    });
  for (size_t c = 0; c < chunks; c += workers)
    fill(first / kNormalChunk + c, out + c * kNormalChunk,
         std::min<size_t>(kNormalChunk, n - c * kNormalChunk));
  for (auto& t : pool) t.join();
}

uint64_t weight_seed(uint64_t seed, const std::string& name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  return h ^ (seed * 0x9e3779b97f4a7c15ull);
}

Attr Attr::i(std::string name, int64_t v) {
  Attr a;
  a.proto.set_name(std::move(name));
  a.proto.set_type(onnx::AttributeProto::INT);
  a.proto.set_i(v);
  return a;
}

Attr Attr::f(std::string name, float v) {
  Attr a;
  a.proto.set_name(std::move(name));
  a.proto.set_type(onnx::AttributeProto::FLOAT);
  a.proto.set_f(v);
  return a;
}

Attr Attr::ints(std::string name, std::vector<int64_t> v) {
  Attr a;
  a.proto.set_name(std::move(name));
  a.proto.set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a.proto.add_ints(x);
  return a;
}

Attr Attr::s(std::string name, std::string v) {
  Attr a;
  a.proto.set_name(std::move(name));
  a.proto.set_type(onnx::AttributeProto::STRING);
  a.proto.set_s(std::move(v));
  return a;
}

Attr Attr::g(std::string name, onnx::GraphProto v) {
  Attr a;
  a.proto.set_name(std::move(name));
  a.proto.set_type(onnx::AttributeProto::GRAPH);
  *a.proto.mutable_g() = std::move(v);
  return a;
}

OnnxWriter::OnnxWriter(Options options) : options_(std::move(options)) {
  model_.set_ir_version(8);
  model_.set_producer_name(options_.producer);
  graph().set_name("main_graph");
  add_opset("", options_.opset);
  if (!options_.dry_run && !options_.data_path.empty()) {
    data_ = std::fopen(options_.data_path.c_str(), "wb");
    if (!data_)
      throw std::runtime_error(
          str_cat("cannot write '", options_.data_path, "': ", std::strerror(errno)));
  }
}

OnnxWriter::~OnnxWriter() {
  if (data_) std::fclose(data_);
}

void OnnxWriter::add_opset(const std::string& domain, int version) {
  auto* o = model_.add_opset_import();
  o->set_domain(domain);
  o->set_version(version);
}

std::string OnnxWriter::op(const std::string& type, const std::string& name,
                           const std::vector<std::string>& inputs, const std::vector<Attr>& attrs,
                           const std::string& domain) {
  std::string out = name + "_output_0";
  op_to(type, name, inputs, {out}, attrs, domain);
  return out;
}

void OnnxWriter::op_to(const std::string& type, const std::string& name,
                       const std::vector<std::string>& inputs,
                       const std::vector<std::string>& outputs, const std::vector<Attr>& attrs,
                       const std::string& domain) {
  onnx::NodeProto* n = graph().add_node();
  n->set_op_type(type);
  n->set_name(name);
  if (!domain.empty()) n->set_domain(domain);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  for (const auto& a : attrs) *n->add_attribute() = a.proto;
}

onnx::TensorProto& OnnxWriter::new_tensor(const std::string& name, int32_t elem,
                                          const std::vector<int64_t>& dims) {
  onnx::TensorProto* t = graph().add_initializer();
  t->set_name(name);
  t->set_data_type(elem);
  for (int64_t d : dims) t->add_dims(d);
  return *t;
}

std::string OnnxWriter::const_i64(const std::string& name, const std::vector<int64_t>& values,
                                  bool scalar) {
  std::vector<int64_t> dims;
  if (!scalar) dims.push_back(static_cast<int64_t>(values.size()));
  onnx::TensorProto& t = new_tensor(name, onnx::TensorProto::INT64, dims);
  t.set_raw_data(values.data(), values.size() * sizeof(int64_t));
  return name;
}

std::string OnnxWriter::const_scalar(const std::string& name, ElemType t, float v) {
  return const_values(name, t, {}, {v});
}

std::string OnnxWriter::const_values(const std::string& name, ElemType t,
                                     const std::vector<int64_t>& dims,
                                     const std::vector<float>& values) {
  onnx::TensorProto& tp = new_tensor(name, elem_onnx(t), dims);
  std::string& raw = *tp.mutable_raw_data();
  raw.resize(values.size() * elem_size(t));
  for (size_t i = 0; i < values.size(); ++i) {
    if (t == ElemType::kF32) {
      std::memcpy(raw.data() + 4 * i, &values[i], 4);
    } else {
      const uint16_t h = t == ElemType::kF16 ? f32_to_f16(values[i]) : f32_to_bf16(values[i]);
      std::memcpy(raw.data() + 2 * i, &h, 2);
    }
  }
  return name;
}

void OnnxWriter::begin_external(onnx::TensorProto& tp, uint64_t bytes) {
  const uint64_t aligned = (data_offset_ + kExternalAlign - 1) / kExternalAlign * kExternalAlign;
  if (options_.shape_only) {
    data_offset_ = aligned;
  } else if (aligned > data_offset_) {
    static const std::vector<char> zeros(kExternalAlign, 0);
    if (std::fwrite(zeros.data(), 1, aligned - data_offset_, data_) != aligned - data_offset_)
      throw std::runtime_error(
          str_cat("cannot write '", options_.data_path, "': ", std::strerror(errno)));
    data_offset_ = aligned;
  }
  tp.set_data_location(onnx::TensorProto::EXTERNAL);
  const auto kv = [&](const char* k, const std::string& v) {
    auto* e = tp.add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  kv("location", options_.data_location);
  kv("offset", std::to_string(data_offset_));
  kv("length", std::to_string(bytes));
}

void OnnxWriter::emit(onnx::TensorProto& tp, ElemType t, const float* v, size_t n) {
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(v);
  const size_t nbytes = n * elem_size(t);
  if (t != ElemType::kF32) {
    scratch_.resize(nbytes);
    for (size_t i = 0; i < n; ++i) {
      const uint16_t h = t == ElemType::kF16 ? f32_to_f16(v[i]) : f32_to_bf16(v[i]);
      std::memcpy(scratch_.data() + 2 * i, &h, 2);
    }
    bytes = scratch_.data();
  }
  if (data_) {
    if (std::fwrite(bytes, 1, nbytes, data_) != nbytes)
      throw std::runtime_error(
          str_cat("cannot write '", options_.data_path, "': ", std::strerror(errno)));
    data_offset_ += nbytes;
  } else {
    tp.mutable_raw_data()->append(reinterpret_cast<const char*>(bytes), nbytes);
  }
}

std::string OnnxWriter::weight(const std::string& name, ElemType t,
                               const std::vector<int64_t>& dims, float mean, float std) {
  onnx::TensorProto& tp = new_tensor(name, elem_onnx(t), dims);
  uint64_t n = 1;
  for (int64_t d : dims) n *= static_cast<uint64_t>(d);
  weight_bytes_ += n * elem_size(t);
  if (options_.dry_run) return name;
  if (data_)
    begin_external(tp, n * elem_size(t));
  else
    tp.mutable_raw_data()->reserve(n * elem_size(t));
  if (data_ && options_.shape_only) {
    data_offset_ += n * elem_size(t);
    return name;
  }
  const uint64_t stream = weight_seed(options_.seed, name);
  std::vector<float> block(static_cast<size_t>(std::min<uint64_t>(n, kDrawBlock)));
  for (uint64_t done = 0; done < n; done += block.size()) {
    const size_t k = static_cast<size_t>(std::min<uint64_t>(block.size(), n - done));
    draw_normals(stream, done, k, mean, std, block.data());
    emit(tp, t, block.data(), k);
  }
  return name;
}

std::string OnnxWriter::weight_transposed(const std::string& name, const std::string& source,
                                          ElemType t, int64_t rows, int64_t cols, float mean,
                                          float std) {
  onnx::TensorProto& tp = new_tensor(name, elem_onnx(t), {cols, rows});
  const uint64_t n = static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols);
  weight_bytes_ += n * elem_size(t);
  if (options_.dry_run) return name;
  if (data_)
    begin_external(tp, n * elem_size(t));
  else
    tp.mutable_raw_data()->reserve(n * elem_size(t));
  if (data_ && options_.shape_only) {
    data_offset_ += n * elem_size(t);
    return name;
  }
  // The source's draws, row-major [rows, cols], then written column by column in blocks.
  std::vector<float> src(n);
  const uint64_t stream = weight_seed(options_.seed, source);
  for (uint64_t done = 0; done < n; done += kDrawBlock)
    draw_normals(stream, done, static_cast<size_t>(std::min(kDrawBlock, n - done)), mean, std,
                 src.data() + done);
  constexpr int64_t kBlock = 32;
  std::vector<float> buf(static_cast<size_t>(kBlock * rows));
  for (int64_t c0 = 0; c0 < cols; c0 += kBlock) {
    const int64_t nc = std::min(kBlock, cols - c0);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < nc; ++c)
        buf[static_cast<size_t>(c * rows + r)] = src[static_cast<size_t>(r * cols + c0 + c)];
    emit(tp, t, buf.data(), static_cast<size_t>(nc * rows));
  }
  return name;
}

namespace {

void set_io(onnx::ValueInfoProto& vi, const std::string& name, int32_t elem,
            const std::vector<IoDim>& dims) {
  vi.set_name(name);
  auto* tt = vi.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* shape = tt->mutable_shape();
  for (const IoDim& d : dims) {
    auto* dim = shape->add_dim();
    if (d.symbol.empty())
      dim->set_dim_value(d.value);
    else
      dim->set_dim_param(d.symbol);
  }
}

}  // namespace

void OnnxWriter::input(const std::string& name, int32_t elem, const std::vector<IoDim>& dims) {
  set_io(*graph().add_input(), name, elem, dims);
}

void OnnxWriter::output(const std::string& name, int32_t elem, const std::vector<IoDim>& dims) {
  set_io(*graph().add_output(), name, elem, dims);
}

void OnnxWriter::save(const std::string& path) {
  if (data_) {
    bool ok = std::fflush(data_) == 0;
    if (ok && options_.shape_only)  // the skipped places read as zeros
      ok = ::ftruncate(::fileno(data_), static_cast<off_t>(data_offset_)) == 0;
    // Written pages stay cached in the small folios of the write path, and a runtime mapping them
    // then streams its weights through 4 KiB TLB entries (asc's fp32 0.5B decode: 9-15 tok/s
    // against 19-23 with 2 MiB folios, docs/PERFORMANCE.md). On disk and out of the page cache,
    // the first reader that asks for huge pages (asc's mapping does) reads them back as such.
    if (ok && !options_.shape_only && ::fdatasync(::fileno(data_)) == 0)
      ::posix_fadvise(::fileno(data_), 0, 0, POSIX_FADV_DONTNEED);
    const bool closed = std::fclose(data_) == 0;
    data_ = nullptr;
    if (!ok || !closed)
      throw std::runtime_error(
          str_cat("cannot write '", options_.data_path, "': ", std::strerror(errno)));
  }
  if (model_.ByteSizeLong() > (uint64_t{1} << 31) - 1)
    throw std::runtime_error(
        "the model is over protobuf's 2 GiB limit with inline weights; use external data");
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f || !model_.SerializeToOstream(&f) || !f.flush())
    throw std::runtime_error(str_cat("cannot write '", path, "'"));
}

}  // namespace asc::models
