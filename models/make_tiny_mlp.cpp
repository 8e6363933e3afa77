// asc-make-tiny-mlp OUT.onnx: writes the bundled example model, a small MLP classifier with a
// symbolic batch dim and seeded weights (the same bytes on every machine).
//
//   x: f32[batch,16]
//   h      = Relu(MatMul(x, w1[16,32]) + b1[32])
//   logits = MatMul(h, w2[32,8]) + b2[8]
//   leaky  = Where(Cast<bool>(Relu(logits)), logits, logits * 0.1)   (a leaky ReLU)
//   probs    = Softmax(leaky, axis=-1)                       f32[batch,8]
//   score    = ReduceMean(Sigmoid(leaky), axes=[1], keepdims=0)  f32[batch]
//   logits_t = Transpose(leaky, perm=[1,0])                  f32[8,batch]
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int64_t kIn = 16, kHidden = 32, kClasses = 8;

void add_initializer(onnx::GraphProto& g, const std::string& name, std::vector<int64_t> dims,
                     std::mt19937& rng) {
  onnx::TensorProto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  // Uniform in +-1/sqrt(fan_in), fan_in = the first dim (1-D tensors are biases).
  const double bound = 1.0 / std::sqrt(static_cast<double>(dims.front()));
  std::uniform_real_distribution<double> u(-bound, bound);
  for (int64_t i = 0; i < n; ++i) t->add_float_data(static_cast<float>(u(rng)));
}

void add_scalar(onnx::GraphProto& g, const std::string& name, float v) {
  onnx::TensorProto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_float_data(v);
}

onnx::NodeProto& add_node(onnx::GraphProto& g, const std::string& op,
                          std::initializer_list<const char*> inputs, const std::string& output) {
  onnx::NodeProto* n = g.add_node();
  n->set_op_type(op);
  n->set_name(output);
  for (const char* i : inputs) n->add_input(i);
  n->add_output(output);
  return *n;
}

void set_ints(onnx::NodeProto& n, const std::string& name, std::initializer_list<int64_t> v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void set_int(onnx::NodeProto& n, const std::string& name, int64_t v) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

// A graph input or output of type f32 with dims given as numbers or the symbol "batch".
void add_io(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& list, const std::string& name,
            std::initializer_list<int64_t> dims) {
  onnx::ValueInfoProto* vi = list.Add();
  vi->set_name(name);
  onnx::TypeProto_Tensor* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) {
    onnx::TensorShapeProto_Dimension* dim = tt->mutable_shape()->add_dim();
    if (d < 0)
      dim->set_dim_param("batch");
    else
      dim->set_dim_value(d);
  }
}

onnx::ModelProto make_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("asc-make-tiny-mlp");
  m.add_opset_import()->set_version(13);
  onnx::GraphProto& g = *m.mutable_graph();
  g.set_name("tiny_mlp");

  std::mt19937 rng(20240607);
  add_initializer(g, "w1", {kIn, kHidden}, rng);
  add_initializer(g, "b1", {kHidden}, rng);
  add_initializer(g, "w2", {kHidden, kClasses}, rng);
  add_initializer(g, "b2", {kClasses}, rng);
  add_scalar(g, "slope", 0.1f);

  add_node(g, "MatMul", {"x", "w1"}, "h_mm");
  add_node(g, "Add", {"h_mm", "b1"}, "h_pre");
  add_node(g, "Relu", {"h_pre"}, "h");
  add_node(g, "MatMul", {"h", "w2"}, "logits_mm");
  add_node(g, "Add", {"logits_mm", "b2"}, "logits");
  add_node(g, "Relu", {"logits"}, "logits_pos");
  set_int(add_node(g, "Cast", {"logits_pos"}, "is_pos"), "to", onnx::TensorProto::BOOL);
  add_node(g, "Mul", {"logits", "slope"}, "logits_neg");
  add_node(g, "Where", {"is_pos", "logits", "logits_neg"}, "leaky");
  set_int(add_node(g, "Softmax", {"leaky"}, "probs"), "axis", -1);
  add_node(g, "Sigmoid", {"leaky"}, "gate");
  onnx::NodeProto& mean = add_node(g, "ReduceMean", {"gate"}, "score");
  set_ints(mean, "axes", {1});
  set_int(mean, "keepdims", 0);
  set_ints(add_node(g, "Transpose", {"leaky"}, "logits_t"), "perm", {1, 0});

  add_io(*g.mutable_input(), "x", {-1, kIn});
  add_io(*g.mutable_output(), "probs", {-1, kClasses});
  add_io(*g.mutable_output(), "score", {-1});
  add_io(*g.mutable_output(), "logits_t", {kClasses, -1});
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: asc-make-tiny-mlp OUT.onnx\n");
    return 2;
  }
  const std::filesystem::path out = argv[1];
  std::error_code ec;
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path(), ec);
  std::ofstream f(out, std::ios::binary | std::ios::trunc);
  if (!f || !make_model().SerializeToOstream(&f) || !f.flush()) {
    std::fprintf(stderr, "asc-make-tiny-mlp: cannot write '%s'\n", argv[1]);
    return 1;
  }
  return 0;
}
