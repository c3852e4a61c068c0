// The Lambda bundle loads node:process with require(), not import: see BUILTINS_BY_REQUIRE in
// infra/constructs/archiveFunction.ts. Without the node: prefix, which the alias to this file takes.
// biome-ignore lint/style/useNodejsImportProtocol: node:process here would resolve to this very file
module.exports = require('process');
