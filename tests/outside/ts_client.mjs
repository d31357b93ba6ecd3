// A client written with the TypeScript MCP SDK: lists the tools, calls hashsum, prints JSON.
//
//   node ts_client.mjs stdio COMMAND [ARG...]
//   node ts_client.mjs http URL
//
// The SDK is loaded from $OUTSIDE_CLIENTS_NODE/node_modules (see .ci/outside-clients.sh).
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const tools = process.env.OUTSIDE_CLIENTS_NODE;
if (!tools) throw new Error("OUTSIDE_CLIENTS_NODE is not set");
const require = createRequire(join(tools, "package.json"));
const load = async (name) => import(pathToFileURL(require.resolve(name)).href);

const { Client } = await load("@modelcontextprotocol/sdk/client/index.js");
const [mode, ...rest] = process.argv.slice(2);
let transport;
if (mode === "stdio") {
  const { StdioClientTransport } = await load("@modelcontextprotocol/sdk/client/stdio.js");
  transport = new StdioClientTransport({ command: rest[0], args: rest.slice(1), cwd: process.cwd(), stderr: "ignore" });
} else if (mode === "http") {
  const { StreamableHTTPClientTransport } = await load("@modelcontextprotocol/sdk/client/streamableHttp.js");
  transport = new StreamableHTTPClientTransport(new URL(rest[0]));
} else {
  throw new Error(`unknown mode ${mode}`);
}

const client = new Client({ name: "toolbay-outside-test", version: "1.0.0" });
await client.connect(transport);
const listed = await client.listTools();
const called = await client.callTool({ name: "hashsum", arguments: { text: "abc", algorithm: "sha256" } });
await client.close();
console.log(JSON.stringify({
  server: client.getServerVersion(),
  tools: listed.tools.map((tool) => tool.name),
  isError: called.isError ?? false,
  text: called.content.map((item) => item.text ?? "").join(""),
}));
