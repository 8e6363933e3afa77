// Builds small ModelProtos in tests: nodes, attributes, initializers and typed inputs/outputs.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "importers/onnx/onnx_importer.h"
#include "registry/dtype.h"

namespace asc::test {

// The message of the E that f() throws; a test failure when it throws none.
template <typename E, typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception of the expected type";
  return {};
}

// A unique empty folder under the system temp dir, removed with its contents at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "asc_onnx_XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& rel) const { return (path_ / rel).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <typename T>
std::string bytes_of(const std::vector<T>& v) {
  std::string s(v.size() * sizeof(T), '\0');
  if (!v.empty()) std::memcpy(s.data(), v.data(), s.size());
  return s;
}

class ModelBuilder {
 public:
  explicit ModelBuilder(int opset = 17, int ir_version = 8) {
    m.set_ir_version(ir_version);
    auto* o = m.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    g().set_name("test_graph");
  }

  onnx::GraphProto& g() { return *m.mutable_graph(); }

  onnx::NodeProto& node(const std::string& op, std::vector<std::string> ins,
                        std::vector<std::string> outs, const std::string& name = "") {
    auto* n = g().add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& i : ins) n->add_input(i);
    for (auto& o : outs) n->add_output(o);
    return *n;
  }

  // dims: a number, "?" (unknown) or a symbol name.
  static void set_type(onnx::ValueInfoProto& vi, DType dt, const std::vector<std::string>& dims) {
    auto* tt = vi.mutable_type()->mutable_tensor_type();
    tt->set_elem_type(static_cast<int32_t>(dt));
    auto* shape = tt->mutable_shape();
    for (const auto& d : dims) {
      auto* dim = shape->add_dim();
      if (d == "?") continue;
      if (d.find_first_not_of("0123456789") == std::string::npos)
        dim->set_dim_value(std::stoll(d));
      else
        dim->set_dim_param(d);
    }
  }
  void input(const std::string& name, DType dt, const std::vector<std::string>& dims) {
    auto* vi = g().add_input();
    vi->set_name(name);
    set_type(*vi, dt, dims);
  }
  void output(const std::string& name, DType dt, const std::vector<std::string>& dims) {
    auto* vi = g().add_output();
    vi->set_name(name);
    set_type(*vi, dt, dims);
  }

  // An initializer whose raw_data holds `raw` (not checked against dims: tests break it on
  // purpose).
  onnx::TensorProto& initializer(const std::string& name, DType dt,
                                 const std::vector<int64_t>& dims, const std::string& raw) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(static_cast<int32_t>(dt));
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(raw);
    return *t;
  }
  onnx::TensorProto& initializer_f32(const std::string& name, const std::vector<int64_t>& dims,
                                     const std::vector<float>& v) {
    return initializer(name, DType::kF32, dims, bytes_of(v));
  }
  // An initializer stored in an external file.
  onnx::TensorProto& external(const std::string& name, DType dt, const std::vector<int64_t>& dims,
                              const std::string& location, int64_t offset, int64_t length = -1) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(static_cast<int32_t>(dt));
    for (int64_t d : dims) t->add_dims(d);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto kv = [&](const char* k, const std::string& v) {
      auto* e = t->add_external_data();
      e->set_key(k);
      e->set_value(v);
    };
    kv("location", location);
    kv("offset", std::to_string(offset));
    if (length >= 0) kv("length", std::to_string(length));
    return *t;
  }

  std::string bytes() const { return m.SerializeAsString(); }
  Graph import(const std::string& base_dir = "") const {
    const std::string b = bytes();
    return import_onnx_bytes(b.data(), b.size(), base_dir);
  }
  void save(const std::string& path) const { write_file(path, bytes()); }

  onnx::ModelProto m;
};

inline onnx::AttributeProto& attr(onnx::NodeProto& n, const std::string& name) {
  auto* a = n.add_attribute();
  a->set_name(name);
  return *a;
}
inline void attr_i(onnx::NodeProto& n, const std::string& name, int64_t v) {
  auto& a = attr(n, name);
  a.set_type(onnx::AttributeProto::INT);
  a.set_i(v);
}
inline void attr_f(onnx::NodeProto& n, const std::string& name, float v) {
  auto& a = attr(n, name);
  a.set_type(onnx::AttributeProto::FLOAT);
  a.set_f(v);
}

// Subgraph building (If's branches, Loop's and Scan's bodies): a node, an f32 output of length
// `len`, a typed input, and a graph attribute.
inline onnx::NodeProto& add_node(onnx::GraphProto& g, const std::string& op,
                                 std::vector<std::string> ins, std::vector<std::string> outs) {
  auto* n = g.add_node();
  n->set_op_type(op);
  n->set_name(outs.empty() ? op : outs[0]);
  for (auto& i : ins) n->add_input(i);
  for (auto& o : outs) n->add_output(o);
  return *n;
}

inline void add_output(onnx::GraphProto& g, const std::string& name, int64_t len) {
  auto* vi = g.add_output();
  vi->set_name(name);
  ModelBuilder::set_type(*vi, DType::kF32, {std::to_string(len)});
}

inline void add_input(onnx::GraphProto& g, const std::string& name, DType dt,
                      const std::vector<std::string>& dims) {
  auto* vi = g.add_input();
  vi->set_name(name);
  ModelBuilder::set_type(*vi, dt, dims);
}

inline void set_graph(onnx::NodeProto& n, const std::string& name, const onnx::GraphProto& g) {
  auto& a = attr(n, name);
  a.set_type(onnx::AttributeProto::GRAPH);
  *a.mutable_g() = g;
}

}  // namespace asc::test
