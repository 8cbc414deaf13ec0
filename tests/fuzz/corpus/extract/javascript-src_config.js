// Settings for the command-line wrapper, still written as CommonJS.
const path = require('path');
const { pad: padText } = require('./format.js');

function resolveDir(dir) {
  return path.resolve(__dirname, dir);
}

module.exports = {
  load(name) {
    return { dir: resolveDir(name), label: padText(name, 8) };
  },
};

module.exports.describe = function describe() {
  return 'config ' + resolveDir('.');
};
