// ONNX operator schema versions that Debian's ONNX 1.12 (opsets up to 17) does not know: every
// version the default domain added in opsets 18 to 23, as facts read from the ONNX operator
// changelog (docs/Changelog.md of onnx/onnx). The importer reads the newest opsets from here, the
// coverage report lists these versions next to libonnx's, and a test checks that no registered
// op version spans one whose semantics changed (docs/ONNX.md).
#pragma once

#include <span>
#include <string_view>

namespace asc {

// What a schema version changed against the op's previous version.
enum class SchemaChange : unsigned char {
  kNew,        // the op's first version
  kTypes,      // only its type lists (and wording): an older definition computes it unchanged
  kSemantics,  // inputs, attributes or behaviour: it needs a definition of its own
};

struct SchemaVersion {
  std::string_view domain;  // "ai.onnx"
  std::string_view op;
  int since;
  SchemaChange change;
};

// Every ai.onnx schema version of opsets 18..23, by opset then op name.
std::span<const SchemaVersion> onnx_schemas_after_1_12();

// The newest opset asc reads per domain: ai.onnx 23, ai.onnx.ml 5, the training domains 1; 0 for
// domains ONNX does not define (vendor domains, which are not checked).
int newest_onnx_opset(std::string_view domain);

// The newest schema version of `op` in (after, opset] from the table above; 0 when there is none.
int newest_schema_after(std::string_view domain, std::string_view op, int after, int opset);

}  // namespace asc
