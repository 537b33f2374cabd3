import http from 'node:http';
const port = Number(process.argv[process.argv.indexOf('--port') + 1] ?? 8787);
const server = http.createServer((req, res) => {
  res.writeHead(req.url === '/healthz' ? 200 : 404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ ok: req.url === '/healthz' }));
});
server.listen(port, '127.0.0.1', () => {
  const a = server.address();
  if (a && typeof a === 'object') process.stdout.write(`listening on http://127.0.0.1:${a.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
