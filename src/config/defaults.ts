// Default settings and the app.toml written by `kestreld init`.

export const DEFAULT_CHAIN_ID = 'kestrel_9000-1';
export const DEFAULT_EVM_DENOM = 'akestrel';
export const DEFAULT_BECH32_PREFIX = 'kestrel';
export const ALL_NAMESPACES = ['eth', 'net', 'web3', 'txpool', 'debug', 'trace', 'ots', 'personal', 'miner'] as const;

/** The app.toml a fresh home gets; every key is documented in the README. */
export function defaultAppToml(bech32Prefix: string = DEFAULT_BECH32_PREFIX): string {
  return `# Kestrel node configuration. Command-line flags override these values.

# Prefix of the chain's bech32 account addresses (kestrel1…); validator operators add "valoper".
# It must match the addresses in genesis.json: set it with "kestreld init --bech32-prefix".
bech32-prefix = "${bech32Prefix}"

# Minimum gas price a transaction must pay to be admitted and included, e.g. "0akestrel".
minimum-gas-prices = "0${DEFAULT_EVM_DENOM}"

# Block production of the embedded solo engine: "0" seals as soon as transactions are pending,
# a duration such as "1s" seals on that interval (empty blocks included).
block-time = "0"

[consensus]
# "solo": the embedded single-validator engine; "cometbft": serve ABCI to a CometBFT node (see [abci], [comet]).
engine = "solo"

[mempool]
# Executable (pending) transactions: slots each account may always hold, and the total. When the pool is full,
# accounts over their slots give up their highest nonces first, then the cheapest transaction is evicted.
account-slots = 16
global-slots = 5120
# Non-executable (queued, behind a nonce gap) transactions: per account, and the total.
account-queue = 64
global-queue = 1024
# How long a queued transaction may wait for its nonce gap to fill.
lifetime = "3h"
# Minimum bump, in percent, of both fee caps to replace a pooled transaction with the same nonce.
price-bump = 10
# Keep accepted transactions in <home>/data/txpool.journal so a restart (even after kill -9) gets them back.
journal = true
# fsync the journal before acknowledging a transaction (survives a power loss too, at some throughput cost).
journal-fsync = true
# Worker threads that recover the senders of submitted transactions, and under CometBFT of proposals' and CheckTx's
# (0: the main thread does it): signature recovery moves to other cores. "auto": one with two cores or more.
recovery-workers = "auto"
# The submitted transactions of one event-loop turn go to the workers as one batch when there are at least this
# many; fewer are recovered on the main thread.
recovery-min-batch = 1

[cache]
# Memory, in MiB, that the node's caches may hold together: trie nodes, the head state, blocks and receipts, code,
# the state memos of calls and reads, the fork's upstream answers and LevelDB's block cache. Each cache has a share of
# it and evicts its least recently used entries past that share; the metrics show each cache's bytes
# (kestrel_cache_bytes) and share (kestrel_cache_limit_bytes). At least 64.
budget-mb = 1024
# How far the JavaScript heap may grow past its live data before a full garbage collection, in percent. Under load
# V8's own rule (0) lets it reach 2-4x the live data, and RSS follows the heap; 20 keeps it near 1.2x for some more
# collector time.
heap-growth-percent = 20

[miner]
# Account that receives the fees of the blocks this node produces (miner_setEtherbase writes it);
# empty: the validator's account.
etherbase = ""

[json-rpc]
enable = true
address = "127.0.0.1:8545"
ws-address = "127.0.0.1:8546"
api = "eth,net,web3,txpool,debug,trace,ots,personal,miner"
gas-cap = 25000000
evm-timeout = "5s"
# Tracing (debug_trace*): the longest "timeout" a caller may ask for (longer ones are clamped; geth's default of
# 5s applies when none is given), and the heap of one JavaScript tracer's sandbox, in bytes.
tracer-timeout-cap = "60s"
tracer-memory = 67108864
logs-cap = 10000
block-range-cap = 10000
filter-cap = 200
# A polling filter (eth_newFilter, …) not polled for this long is removed.
filter-timeout = "5m"
# WebSocket subscriptions: most per connection, and the unsent bytes a connection may hold before the
# subscription being fed is dropped with an error (a client that stops reading cannot grow the node's memory).
ws-subscriptions-per-connection = 1000
ws-subscription-buffer-bytes = 16777216
feehistory-cap = 100
http-timeout = "30s"
# HTTP and WebSocket back end: "auto" runs uWebSockets.js where its binary loads (Linux/macOS/Windows on Node 16,
# 18, 20) and node:http + ws elsewhere; "uws" or "node" forces one. The node logs which one runs and why.
transport = "auto"
# After answering a request, keep polling for the next one this many microseconds before sleeping (0 = sleep at
# once). Waking a sleeping event loop costs more than answering a simple read, so a client that waits for each answer
# is served up to ~1.7x faster; the cost is at most this much CPU time per answer, and none while idle.
busy-poll-us = 100
# Write the HTTP replies answered in one turn of the event loop together, after it has read every ready connection,
# instead of each at once: a burst wakes a client's threads once rather than once per reply (more answers per
# second and less system time under many connections). On uWebSockets.js a client that pipelines HTTP/1.1 requests
# (several in one packet, before the first answer) then has its connection closed, as uWS refuses a request while
# an earlier answer is pending; set false for such a client. Browsers, fetch/undici, Node's http, Go, hyper (Foundry)
# and Python clients do not pipeline.
coalesce-writes = true
max-body-bytes = 5242880
batch-request-limit = 1000
# Largest reply to one request or batch, in bytes; a bigger one is answered with -32003 "response too large".
max-response-bytes = 26214400
# Open connections each of the HTTP and WebSocket servers accepts; more are answered 503 and closed (0 = no cap).
max-open-connections = 2000
cors-origins = ["*"]
# Host header names the HTTP server answers (DNS-rebinding guard, like geth's --http.vhosts); IP addresses are
# always accepted; ["*"] accepts any name.
allowed-hosts = ["localhost"]
# "none" returns standard post-merge values; "ethermint" returns the values Ethermint returned.
compat = "none"
# Bearer token file for the private namespaces (personal, miner); empty = <home>/config/auth.token.
auth-token-file = ""

[keystore]
# scrypt cost of new key files in <home>/keystore. Unset: geth's standard n=262144, p=1 (about 0.5-1 s per unlock),
# or geth's light n=4096, p=6 with --dev. Existing files keep the cost they were written with.
# scrypt-n = 262144
# scrypt-p = 1

[grpc]
address = "127.0.0.1:9090"

[rpc]
laddr = "tcp://127.0.0.1:26657"

[abci]
# Where the ABCI server listens for CometBFT (--consensus cometbft): tcp://host:port or unix:///path.
laddr = "tcp://127.0.0.1:26658"

[comet]
# CometBFT's RPC (--consensus cometbft): eth_sendRawTransaction forwards transactions there (broadcast_tx_sync).
rpc = "tcp://127.0.0.1:26657"
`;
}
