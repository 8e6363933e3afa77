// OpDef: an operator declared once — schema, shape inference, tiling, kernel and reference.
// Everything else (asc-ops, the importer's coverage, the tests' self-check) reads it.
#pragma once

#include <climits>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "registry/attr.h"
#include "registry/dsl.h"
#include "registry/launch.h"
#include "registry/tensor.h"

namespace asc {

// Op traits: what passes ask instead of switching on op names.
enum Trait : uint32_t {
  kElementwise = 1u << 0,    // output element i depends only on input elements at i
  kBroadcast = 1u << 1,      // inputs broadcast numpy-style
  kCommutative = 1u << 2,    // binary op with op(a, b) == op(b, a)
  kReduction = 1u << 3,      // reduces along axes
  kMovement = 1u << 4,       // moves data without arithmetic (transpose, reshape, slice)
  kContraction = 1u << 5,    // matmul-like: runs on the cube unit
  kNormalization = 1u << 6,  // softmax, layer norm, ...
  kShapeOf = 1u << 7,        // outputs depend only on input types (Shape, Size): no data read
  kRandom = 1u << 8,         // draws random numbers: never folded into a constant
  kControlFlow = 1u << 9,  // runs subgraphs (If, Loop, Scan): the runtime executes it, not a kernel
};
std::string traits_str(uint32_t traits);  // "elementwise|broadcast"

enum class Arity : uint8_t { kSingle, kOptional, kVariadic };

struct ParamDef {
  std::string name;
  std::string type;  // type-constraint name ("T") or a fixed dtype name ("i64")
  Arity arity = Arity::kSingle;
  // Inference or tiling reads this input's value (axes, shapes): a graph input feeding it makes
  // its value part of the plan's signature.
  bool value_needed = false;
  // The kernel reads (input) or writes (output) this parameter through TensorDesc::strides, so
  // the runtime may bind a strided view to it as is (Model::run; otherwise it makes a contiguous
  // copy). Only caller tensors are ever strided: a KV-cache view, a caller's output buffer.
  bool strided = false;
  // A variadic input whose elements may each bind their own dtype from the constraint (ONNX's
  // is_homogeneous = false); otherwise every element binds the same one.
  bool homogeneous = true;
};

struct AttrDef {
  std::string name;
  AttrKind kind = AttrKind::kInt;
  std::optional<AttrValue> dflt;  // nullopt: required
};

struct TypeConstraint {
  std::string name;
  std::vector<DType> types;
};

struct InferContext {
  const OpDef& op;
  const std::vector<TensorType>& inputs;  // absent optional inputs have dtype kUndefined
  const Attrs& attrs;                     // defaults filled in
  std::vector<const Tensor*> values;      // constant input values where known, else nullptr
  size_t num_outputs = 0;                 // the node's output count; 0 when not known
};

using InferFn = std::function<std::vector<TensorType>(const InferContext&)>;
using TilingFn = std::function<TilingData(const LaunchContext&)>;
using TileKernelFn = std::function<void(TileBuilder&)>;
using HostKernelFn =
    std::function<void(const LaunchContext&, std::span<const Tensor>, std::span<Tensor>)>;
// Whether output 0 holds input 0's bytes in their order for these resolved attributes and
// contiguous types (a reshape of them: Reshape, Squeeze, a Transpose that moves only size-1
// dims): the runtime may then give the output the input's memory and run nothing.
using SameBytesFn = std::function<bool(const Attrs&, const TensorDesc& in, const TensorDesc& out)>;
// Whether output 0 is the inputs' bytes one after another, in input order, for these resolved
// attributes and contiguous types (a Concat whose dims before the axis are all 1): the runtime
// may then place each input in its block of the output and run nothing.
using BackToBackFn =
    std::function<bool(const Attrs&, std::span<const TensorDesc> in, const TensorDesc& out)>;
// Whether the tile kernel runs a launch, for an op with a host kernel too (resolved attributes,
// input descs, output descs with kUndefined for outputs the node does not want).
using TileWhenFn = std::function<bool(const Attrs&, std::span<const TensorDesc> in,
                                      std::span<const TensorDesc> out)>;
// An op run as a sequence of tile programs (a host kernel that plans them and launches them
// through LaunchContext::launch_program: the RNN family): the placed programs one launch of it
// runs for these types, each with its launch count, in order. The sim device predicts the op
// from it; the host kernel launches the same programs.
struct ProgramLaunches {
  std::shared_ptr<const TileProgram> program;
  int64_t count = 1;
};
using LaunchesFn = std::function<std::vector<ProgramLaunches>(const LaunchContext&)>;
// Naive reference accumulating in double; outputs are preallocated with the inferred shapes.
using ReferenceFn = std::function<void(const Attrs&, std::span<const Tensor>, std::span<Tensor>)>;

enum class KernelKind : uint8_t { kNone, kTile, kHost };
std::string_view kernel_kind_name(KernelKind k);

struct OpDef {
  std::string type;
  std::string domain;  // "" is ai.onnx
  int since = 1;
  int until = INT_MAX;  // last opset this version covers (inclusive)
  std::vector<ParamDef> inputs;
  std::vector<ParamDef> outputs;
  std::vector<AttrDef> attrs;
  std::vector<TypeConstraint> constraints;
  uint32_t traits = 0;
  std::string doc;
  InferFn infer_fn;
  TilingFn tiling_fn;
  TileKernelFn tile_kernel_fn;
  HostKernelFn host_kernel_fn;
  // When the op has a host kernel too: the launches its tile kernel takes (the rest run on the
  // host: Conv in f64, which no cube kernel multiplies; MaxPool asked for Indices). Empty: all.
  TileWhenFn tile_when_fn;
  ReferenceFn reference_fn;
  SameBytesFn same_bytes_fn;     // empty: output 0 is never input 0's bytes as they are
  BackToBackFn back_to_back_fn;  // empty: output 0 is never the inputs' bytes back to back
  LaunchesFn launches_fn;        // host kernels run as tile programs (ProgramLaunches)
  // An input that output 0 may be written over (-1: none besides an elementwise op's): each
  // element of it is read only by the tile that writes the same element of output 0, and before
  // that tile writes it (a FusedConv's residual). The planner then lets the output share the
  // input's memory where this node is the input's last reader.
  int in_place_input = -1;

  // Builder.
  OpDef& input(std::string name, std::string type, Arity a = Arity::kSingle,
               bool value_needed = false);
  OpDef& output(std::string name, std::string type, Arity a = Arity::kSingle);
  // Marks the input or output `name` ParamDef::strided; throws Error for an unknown name.
  OpDef& strided(const std::string& name);
  OpDef& heterogeneous();  // the last input's elements may differ in dtype (ParamDef::homogeneous)
  OpDef& attr(std::string name, AttrKind kind, std::optional<AttrValue> dflt = std::nullopt);
  OpDef& type_constraint(std::string name, std::vector<DType> types);
  OpDef& trait(uint32_t t);
  OpDef& describe(std::string line);
  OpDef& infer(InferFn f);
  OpDef& tiling(TilingFn f);
  OpDef& kernel(TileKernelFn f);
  OpDef& host_kernel(HostKernelFn f);
  OpDef& tile_when(TileWhenFn f);           // see tile_when_fn
  OpDef& tile_types(std::vector<DType> t);  // tile_when input 0's dtype is one of t
  OpDef& reference(ReferenceFn f);
  OpDef& same_bytes(SameBytesFn f);     // see SameBytesFn
  OpDef& same_bytes();                  // always (Reshape, Flatten, Squeeze, Unsqueeze, Identity)
  OpDef& back_to_back(BackToBackFn f);  // see BackToBackFn
  OpDef& launches(LaunchesFn f);        // see LaunchesFn
  OpDef& in_place(int input);           // see in_place_input

  bool has(Trait t) const { return (traits & t) != 0; }
  KernelKind kernel_kind() const;
  // The kernel that runs a launch (see TileWhenFn).
  KernelKind kernel_for(const Attrs& resolved, std::span<const TensorDesc> in,
                        std::span<const TensorDesc> out) const;
  std::string name() const;      // "Add" or "com.microsoft.RotaryEmbedding"
  std::string versions() const;  // "7-12" or "14+"
  // Allowed dtypes of a parameter's type string.
  std::vector<DType> allowed(const std::string& type) const;

  // Validates given attributes against the schema and fills in defaults; throws ShapeError.
  Attrs resolve(const Attrs& given) const;
  // Checks input dtypes against type constraints (consistent binding of each constraint).
  void check_types(const std::vector<DType>& in) const;
};

// Starts a definition: def_op("Add", 7, 12) covers opsets 7..12 of ai.onnx.
OpDef def_op(std::string type, int since, int until = INT_MAX, std::string domain = "");

}  // namespace asc
