// Cast and CastLike (any numeric/bool dtype to any other) and Where (select with three-way
// broadcasting).
#include "ops/activations.h"
#include "ops/ops.h"
#include "registry/error.h"
#include "registry/infer.h"
#include "registry/tiling.h"

namespace asc {
void register_cast_where(Registry& r) {
  r.add(def_op("Cast", 6)
            .input("input", "T1")
            .output("output", "T2")
            .attr("to", AttrKind::kInt)
            .type_constraint("T1", numeric_bool_types())
            .type_constraint("T2", numeric_bool_types())
            .trait(kElementwise)
            .describe("output = input converted to dtype `to` (floats truncate toward zero)")
            .infer([](const InferContext& c) {
              const DType to = static_cast<DType>(c.attrs.i("to"));
              bool ok = false;
              for (DType t : numeric_bool_types()) ok = ok || t == to;
              if (!ok)
                throw ShapeError("Cast to dtype " + std::to_string(c.attrs.i("to")) +
                                 " is not supported");
              return std::vector<TensorType>{{to, c.inputs[0].shape}};
            })
            .tiling(elementwise_tiling)
            .kernel([](TileBuilder& t) {
              Buf x = t.copy_in(0, ew_box(t.ctx(), t.tiling(), 0));
              ew_store(t, 0, x);  // the store casts to the output dtype
            })
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
              ref_elementwise(in, out[0], [](const double* v) { return v[0]; });
            }));

  // CastLike: Cast to target_type's dtype; target_type's shape and values are not read (act_view
  // keeps it out of the elementwise view).
  r.add(def_op("CastLike", 15)
            .input("input", "T1")
            .input("target_type", "T2")
            .output("output", "T2")
            .type_constraint("T1", numeric_bool_types())
            .type_constraint("T2", numeric_bool_types())
            .trait(kElementwise)
            .describe("output = input converted to target_type's dtype")
            .infer([](const InferContext& c) {
              return std::vector<TensorType>{{c.inputs.at(1).dtype, c.inputs.at(0).shape}};
            })
            .tiling([](const LaunchContext& c) { return elementwise_tiling(act_view(c, {1})); })
            .kernel([](TileBuilder& t) {
              const LaunchContext v = act_view(t.ctx(), {1});
              act_store(t, v, 0, t.copy_in(0, ew_box(v, t.tiling(), 0)));
            })
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
              ref_elementwise(in.first(1), out[0], [](const double* v) { return v[0]; });
            }));

  r.add(def_op("Where", 9)
            .input("condition", "bool")
            .input("X", "T")
            .input("Y", "T")
            .output("output", "T")
            .type_constraint("T", numeric_bool_types())
            .trait(kElementwise | kBroadcast)
            .describe("output = condition ? X : Y with numpy broadcasting")
            .infer([](const InferContext& c) { return infer_broadcast(c, 1); })
            .tiling(elementwise_tiling)
            .kernel([](TileBuilder& t) {
              Buf cond = t.copy_in(0, ew_box(t.ctx(), t.tiling(), 0));
              Buf x = t.copy_in(1, ew_box(t.ctx(), t.tiling(), 1));
              Buf y = t.copy_in(2, ew_box(t.ctx(), t.tiling(), 2));
              ew_store(t, 0, t.select(cond, x, y));
            })
            .reference([](const Attrs&, std::span<const Tensor> in, std::span<Tensor> out) {
              ref_elementwise(in, out[0], [](const double* v) { return v[0] != 0 ? v[1] : v[2]; });
            }));
}

}  // namespace asc
