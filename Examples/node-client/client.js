#!/usr/bin/env node
// Buy a product through `iapcontent daemon` (Node.js, standard library only), written from the protocol's OpenRPC
// document (docs/openrpc.json, or `rpc.discover`): check the daemon offers what this uses, subscribe and add the
// purchase in one JSON-RPC batch, draw progress, print the installed folder, finish the transaction.
// Usage: client.js PRODUCT_ID [TRANSACTION_ID] [SOCKET]
'use strict';
const net = require('node:net'), path = require('node:path'), crypto = require('node:crypto');

const [product, transaction = 'purchase-' + crypto.randomUUID().slice(0, 8),
  socketPath = path.join(process.env.XDG_RUNTIME_DIR || '', 'iapcontent/daemon.sock')] = process.argv.slice(2);
const conn = net.createConnection(socketPath);
const pending = new Map();  // id → what waits for its answer
let nextID = 0, buffer = '', lastSequence = 0, installed;
const finished = new Promise((resolve, reject) => { installed = { resolve, reject }; });

/** A request object and the promise of its result. */
function request(method, params = {}) {
  const id = ++nextID;
  const result = new Promise((resolve, reject) => pending.set(id, { method, resolve, reject }));
  return { message: { jsonrpc: '2.0', id, method, params }, result };
}

/** One call: one line. */
function call(method, params) {
  const { message, result } = request(method, params);
  conn.write(JSON.stringify(message) + '\n');
  return result;
}

/** Several calls in one line (a batch): the daemon answers with one array; the results come back in call order. */
function batch(calls) {
  const requests = calls.map(([method, params]) => request(method, params));
  conn.write(JSON.stringify(requests.map((r) => r.message)) + '\n');
  return Promise.all(requests.map((r) => r.result));
}

function answer(message) {
  const waiter = pending.get(message.id);
  if (!waiter) return;
  pending.delete(message.id);
  if (message.error) waiter.reject(new Error(`${waiter.method}: ${message.error.message}`));
  else waiter.resolve(message.result);
}

/** Notifications: one per change of a download, naming every transaction it serves (transactionIDs). */
function notify(message) {
  const params = message.params || {};
  if (lastSequence && params.sequence !== lastSequence + 1) process.stderr.write(`(missed ${params.sequence - lastSequence - 1})`);
  lastSequence = params.sequence;
  const download = params.download;
  if (!download || download.productID !== product || !params.transactionIDs.includes(transaction)) return;
  if (message.method === 'download.progress' || message.method === 'download.state') {
    const done = Math.round(download.progress * 40);
    const eta = download.timeRemaining >= 0 ? `${Math.round(download.timeRemaining)} s left` : '';
    process.stdout.write(`\r${product} [${'#'.repeat(done)}${'.'.repeat(40 - done)}] ${Math.round(download.progress * 100)}% ${eta.padEnd(12)}`);
  } else if (message.method === 'download.error') {
    installed.reject(new Error(`${params.error.code}: ${params.error.message}`));
  } else if (message.method === 'download.finished') {
    installed.resolve(params.contentURL);
  }
}

conn.setEncoding('utf8');
conn.on('data', (chunk) => {
  buffer += chunk;
  for (let newline; (newline = buffer.indexOf('\n')) >= 0;) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    const parsed = JSON.parse(line);
    for (const message of Array.isArray(parsed) ? parsed : [parsed]) ('id' in message ? answer : notify)(message);
  }
});
conn.on('error', (error) => { console.error(`${socketPath}: ${error.message}`); process.exit(1); });

async function main() {
  const document = await call('rpc.discover');
  const offered = new Set(document.methods.map((method) => method.name));
  for (const name of ['subscribe', 'add', 'finish', 'download.progress', 'download.finished', 'download.error']) {
    if (!offered.has(name)) throw new Error(`the daemon does not offer ${name}`);
  }
  const [, added] = await batch([['subscribe', {}], ['add', { transactionID: transaction, productID: product }]]);
  const already = added.downloads.find((download) => download.state === 'finished');
  const content = already ? already.contentURL : await finished;
  await call('finish', { transactionID: transaction });
  process.stdout.write(`\n${product}: ${content}\n`);
  conn.end();
}

main().catch((error) => { console.error(`\n${product}: ${error.message}`); process.exit(1); });
