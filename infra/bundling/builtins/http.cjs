// The Lambda bundle loads node:http with require(), not import: see BUILTINS_BY_REQUIRE in
// infra/constructs/archiveFunction.ts. Without the node: prefix, which the alias to this file takes.
// biome-ignore lint/style/useNodejsImportProtocol: node:http here would resolve to this very file
module.exports = require('http');
