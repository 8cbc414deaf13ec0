const net = require("net");
const a = net.createServer().listen(0, () => {
  net.createServer().listen(a.address().port);
});
setTimeout(() => process.exit(0), 2000).unref();
