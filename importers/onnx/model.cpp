// ModelProto -> Graph: opset imports, initializers, inputs, value_info, nodes, outputs.
#include <algorithm>
#include <climits>
#include <set>

#include "importers/onnx/onnx_importer.h"
#include "importers/onnx/onnx_internal.h"
#include "importers/onnx/onnx_schemas.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/strings.h"

namespace asc {
namespace onnx_import {
namespace {

std::string norm_domain(const std::string& d) {
  return d == "ai.onnx" ? std::string() : d;
}
std::string domain_label(const std::string& d) {
  return d.empty() ? "ai.onnx" : d;
}

// Why no definition serves the node: the op is not implemented at all, or not the version the
// node's opset selects (named when it is one of opsets 18..23, onnx_schemas.h).
std::string registry_versions(const Node& n) {
  const auto vs = global_registry().versions(n.domain, n.op_type);
  if (vs.empty()) return "not implemented";
  std::string have;
  for (const OpDef* v : vs) have += cat(have.empty() ? "" : ", ", v->versions());
  const int schema = newest_schema_after(n.domain, n.op_type, 17, n.opset);
  if (schema > 0) return cat(n.op_type, "-", schema, " is not implemented (asc has ", have, ")");
  return cat("no version for opset ", n.opset, " (asc has ", have, ")");
}

class Importer {
 public:
  Importer(onnx::ModelProto& m, const std::string& base_dir, const ImportOptions& options)
      : m_(&m),
        own_ext_(std::make_unique<ExternalData>(base_dir, options.shape_only_weights)),
        ext_(own_ext_.get()) {}

  Graph run() {
    if (!m_->has_graph()) throw ModelError("the model has no graph");
    read_opsets();
    read_graph(*m_->mutable_graph());
    if (!unsupported_.empty()) {
      std::string msg = cat(unsupported_.size(), " unsupported:");
      for (const auto& u : unsupported_) msg += cat("\n  ", u);
      throw UnsupportedError(msg);
    }
    g_.topo_order();  // throws ModelError on a cycle or an input nothing produces
    return std::move(g_);
  }

 private:
  // A subgraph (a graph attribute of `node` in the parent's graph): the parent's opsets and
  // external data; names it does not define resolve in the enclosing scopes (captured).
  explicit Importer(Importer& parent) : parent_(&parent), ext_(parent.ext_) {
    g_.opsets = parent.g_.opsets;
  }

  void read_graph(onnx::GraphProto& gp) {
    g_.name = gp.name();
    read_initializers(gp);
    read_inputs(gp);
    for (const auto& vi : gp.value_info()) declare(vi, false);
    for (const auto& vi : gp.output()) declare(vi, true);
    for (int i = 0; i < gp.node_size(); ++i) read_node(*gp.mutable_node(i));
    read_outputs(gp);
  }

  // The type of `name` as a value of this graph or an enclosing one, for a subgraph that reads
  // it; nullopt when no scope defines it. A value of an enclosing scope is captured here too, so
  // the node of this graph that runs the subgraph can pass it down.
  std::optional<TensorType> outer_type(const std::string& name) {
    const int id = g_.find(name);
    if (id >= 0 && !pending_.count(id)) return g_.values[id].type;
    if (id >= 0 || !parent_) return std::nullopt;
    auto t = parent_->outer_type(name);
    if (t) capture(name, *t);
    return t;
  }

  int capture(const std::string& name, const TensorType& t) {
    const int id = g_.add_value(name, t);
    g_.inputs.push_back(id);
    g_.outer.push_back(name);
    return id;
  }

  // Imports graph attribute `a` of node `n` as a subgraph; its captured values become inputs of
  // `n` (appended by read_node after the node's own).
  void read_subgraph(onnx::AttributeProto& a, Node& n) {
    Importer sub(*this);
    sub.read_graph(*a.mutable_g());
    for (const auto& u : sub.unsupported_)
      unsupported_.push_back(cat("subgraph '", a.name(), "' of node '", n.name, "': ", u));
    try {
      sub.g_.topo_order();
    } catch (const ModelError& e) {
      throw ModelError(cat("subgraph '", a.name(), "' of node '", n.name, "': ", e.what()));
    }
    n.subgraphs.emplace(a.name(), std::make_shared<const Graph>(std::move(sub.g_)));
  }
  void read_opsets() {
    for (const auto& op : m_->opset_import()) {
      const std::string d = norm_domain(op.domain());
      const int64_t v = op.version();
      if (v < 1 || v > INT_MAX)
        throw ModelError(cat("opset_import of domain ", domain_label(d), " has version ", v));
      auto [it, fresh] = g_.opsets.emplace(d, static_cast<int>(v));
      if (!fresh && it->second != v)
        throw ModelError(cat("domain ", domain_label(d), " is imported twice (opsets ", it->second,
                             " and ", v, ")"));
      const int newest = newest_onnx_opset(d);
      if (newest > 0 && v > newest)
        throw UnsupportedError(
            cat(domain_label(d), " opset ", v, " is newer than asc reads (newest: ", newest, ")"));
    }
    // A missing default-domain import is only an error once a node needs it (read_node): ONNX's
    // own training-op models import ai.onnx.preview.training alone.
    if (g_.opsets.empty()) throw ModelError("the model has no opset_import");
  }

  void read_initializers(onnx::GraphProto& gp) {
    for (auto& tp : *gp.mutable_initializer()) {
      if (tp.name().empty()) throw ModelError("an initializer has no name");
      try {
        g_.add_constant(tp.name(), tensor_from_proto(tp, ext_));
      } catch (const UnsupportedError& e) {
        unsupported_.push_back(cat("initializer: ", e.what()));
        g_.add_value(tp.name(), TensorType{});
      }
    }
    for (const auto& sp : gp.sparse_initializer())
      unsupported_.push_back(cat("sparse initializer '", sp.values().name(), "'"));
  }

  // Graph inputs. One that names an initializer takes it as its default and stays a constant:
  // IR >= 4 lists only fed inputs, IR < 4 also lists every initializer; both land here.
  void read_inputs(const onnx::GraphProto& gp) {
    for (const auto& vi : gp.input()) {
      if (vi.name().empty()) throw ModelError("a graph input has no name");
      const int existing = g_.find(vi.name());
      if (existing >= 0 && g_.values[existing].constant) continue;
      if (existing >= 0) throw ModelError(cat("graph input '", vi.name(), "' is listed twice"));
      std::string why;
      auto t = type_from_proto(vi.type(), cat("graph input '", vi.name(), "'"), &why);
      if (!t) unsupported_.push_back(why);
      const int id = g_.add_value(vi.name(), t.value_or(TensorType{}));
      g_.inputs.push_back(id);
    }
  }

  // Types from value_info and graph outputs, applied when the value is created.
  void declare(const onnx::ValueInfoProto& vi, bool graph_output) {
    std::string why;
    auto t = type_from_proto(vi.type(), cat("graph output '", vi.name(), "'"), &why);
    if (t)
      declared_.emplace(vi.name(), *t);
    else if (graph_output)
      unsupported_.push_back(why);
  }

  TensorType declared(const std::string& name) const {
    auto it = declared_.find(name);
    return it == declared_.end() ? TensorType{} : it->second;
  }

  // A node input: an existing value, or a forward reference resolved when its producer comes
  // (ONNX asks for topologically sorted nodes; topo_order reports what stays unresolved).
  int input_value(const std::string& name) {
    if (name.empty()) return -1;
    int id = g_.find(name);
    if (id < 0 && parent_)
      if (auto t = parent_->outer_type(name)) return capture(name, *t);
    if (id < 0) {
      id = g_.add_value(name, declared(name));
      pending_.insert(id);
    }
    return id;
  }

  int output_value(const std::string& name, const std::string& node) {
    if (name.empty()) return -1;
    const int id = g_.find(name);
    if (id < 0) return g_.add_value(name, declared(name));
    if (pending_.erase(id)) return id;
    const Value& v = g_.values[id];
    throw ModelError(cat("node '", node, "': output '", name, "' is already ",
                         v.constant        ? "an initializer or constant"
                         : v.producer >= 0 ? "produced by another node"
                                           : "a graph input"));
  }

  void read_node(onnx::NodeProto& np) {
    Node n;
    n.name = np.name().empty() ? cat(np.op_type(), "#", g_.nodes.size()) : np.name();
    n.op_type = np.op_type();
    n.domain = norm_domain(np.domain());
    if (n.op_type.empty()) throw ModelError(cat("node '", n.name, "' has no op_type"));
    auto op = g_.opsets.find(n.domain);
    if (op == g_.opsets.end())
      throw ModelError(cat("node '", n.name, "' (", n.op_type, ") uses domain ",
                           domain_label(n.domain),
                           ", which the model's opset_import does not list"));
    n.opset = op->second;

    std::vector<std::string> why;
    for (auto& a : *np.mutable_attribute()) {
      if (n.attrs.has(a.name()) || n.subgraphs.count(a.name()))
        throw ModelError(cat("node '", n.name, "': attribute '", a.name(), "' is given twice"));
      if (a.type() == onnx::AttributeProto::GRAPH ||
          (a.type() == onnx::AttributeProto::UNDEFINED && a.has_g())) {
        read_subgraph(a, n);
        continue;
      }
      std::string reason;
      if (auto v = attr_from_proto(a, ext_, &reason))
        n.attrs.set(a.name(), std::move(*v));
      else
        why.push_back(reason);
    }
    const bool constant = n.domain.empty() && n.op_type == "Constant";
    if (constant) {
      if (why.empty()) return read_constant(np, n);
    } else if (!(n.def = global_registry().find(n.domain, n.op_type, n.opset))) {
      why.insert(why.begin(), registry_versions(n));
    }
    if (!why.empty()) {
      std::string all;
      for (const auto& w : why) all += cat(all.empty() ? "" : "; ", w);
      unsupported_.push_back(cat("node '", n.name, "' (", n.op_type, ", ", domain_label(n.domain),
                                 " opset ", n.opset, "): ", all));
    }
    for (const auto& in : np.input()) n.inputs.push_back(input_value(in));
    // The values its subgraphs read from enclosing scopes, each once, after the node's own.
    std::vector<std::string> outer;
    for (const auto& [attr, sub] : n.subgraphs)
      for (const std::string& name : sub->outer)
        if (std::find(outer.begin(), outer.end(), name) == outer.end()) outer.push_back(name);
    for (const std::string& name : outer) n.inputs.push_back(input_value(name));
    n.captured = static_cast<int>(outer.size());
    for (const auto& out : np.output()) n.outputs.push_back(output_value(out, n.name));
    g_.add_node(std::move(n));
  }

  // Constant: exactly one value attribute and one output; the output becomes a constant value.
  void read_constant(const onnx::NodeProto& np, const Node& n) {
    if (np.output_size() != 1 || np.output(0).empty() || n.attrs.all().size() != 1)
      throw ModelError(
          cat("Constant node '", n.name, "' needs one output and one value attribute"));
    const std::string& key = n.attrs.all().begin()->first;
    Tensor t;
    try {  // the Attrs getters throw ShapeError when the attribute has another kind
      if (key == "value") {
        t = n.attrs.tensor(key);
      } else if (key == "value_float") {
        t = Tensor(DType::kF32, {});
        t.data_as<float>()[0] = n.attrs.f(key);
      } else if (key == "value_floats") {
        const auto& v = n.attrs.floats(key);
        t = Tensor(DType::kF32, {static_cast<int64_t>(v.size())});
        std::copy(v.begin(), v.end(), t.data_as<float>());
      } else if (key == "value_int") {
        t = Tensor(DType::kI64, {});
        t.data_as<int64_t>()[0] = n.attrs.i(key);
      } else if (key == "value_ints") {
        const auto& v = n.attrs.ints(key);
        t = Tensor(DType::kI64, {static_cast<int64_t>(v.size())});
        std::copy(v.begin(), v.end(), t.data_as<int64_t>());
      } else {
        unsupported_.push_back(
            cat("node '", n.name, "' (Constant): attribute '", key, "' is not supported yet"));
        output_value(np.output(0), n.name);
        return;
      }
    } catch (const ShapeError& e) {
      throw ModelError(cat("Constant node '", n.name, "': ", e.what()));
    }
    const int id = output_value(np.output(0), n.name);
    g_.values[id].type = TensorType{t.dtype(), to_sym(t.shape())};
    g_.values[id].constant = std::move(t);
  }

  void read_outputs(const onnx::GraphProto& gp) {
    for (const auto& vi : gp.output()) {
      const int id = g_.find(vi.name());
      if (id < 0 || pending_.count(id))
        throw ModelError(cat("graph output '", vi.name(),
                             "' is not produced by any node, graph input or initializer"));
      g_.outputs.push_back(id);
    }
  }

  onnx::ModelProto* m_ = nullptr;
  Importer* parent_ = nullptr;
  std::unique_ptr<ExternalData> own_ext_;
  ExternalData* ext_ = nullptr;
  Graph g_;
  std::map<std::string, TensorType> declared_;
  std::set<int> pending_;  // values used as node inputs whose producer has not been seen yet
  std::vector<std::string> unsupported_;
};

Graph import(const std::string& source, const void* data, size_t size, const std::string& base,
             const ImportOptions& options) {
  try {
    if (size == 0) throw ModelError("not a valid ONNX model (empty file)");
    if (size > static_cast<size_t>(INT_MAX))
      throw ModelError(cat("the model is ", size,
                           " bytes; a protobuf message is limited to 2 GB (store the weights as "
                           "external data)"));
    auto m = std::make_unique<onnx::ModelProto>();
    if (!parse_message(*m, data, size))
      throw ModelError("not a valid ONNX model (protobuf parse failed)");
    return Importer(*m, base, options).run();
  } catch (const UnsupportedError& e) {
    throw UnsupportedError(cat(source, ": ", e.what()));
  } catch (const ShapeError& e) {
    throw ShapeError(cat(source, ": ", e.what()));
  } catch (const Error& e) {
    throw ModelError(cat(source, ": ", e.what()));
  }
}

}  // namespace
}  // namespace onnx_import

Graph import_onnx_file(const std::string& path, const ImportOptions& options) {
  std::shared_ptr<onnx_import::MappedFile> file;
  try {
    file = onnx_import::MappedFile::open(path);
  } catch (const ModelError& e) {
    throw ModelError(cat("cannot read the model: ", e.what()));
  }
  const auto dir = std::filesystem::path(path).parent_path();
  // The mapping lives until parsing ends; every tensor then owns or views its own bytes.
  return onnx_import::import(path, file->data(), file->size(), dir.empty() ? "." : dir.string(),
                             options);
}

Graph import_onnx_bytes(const void* data, size_t size, const std::string& base_dir,
                        const ImportOptions& options) {
  return onnx_import::import("<bytes>", data, size, base_dir, options);
}

}  // namespace asc
