const config = {};
console.log(config.server.port);
