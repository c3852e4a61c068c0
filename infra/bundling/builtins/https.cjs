// The Lambda bundle loads node:https with require(), not import: see BUILTINS_BY_REQUIRE in
// infra/constructs/archiveFunction.ts. Without the node: prefix, which the alias to this file takes.
// biome-ignore lint/style/useNodejsImportProtocol: node:https here would resolve to this very file
module.exports = require('https');
