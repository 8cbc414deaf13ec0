const text = require("@acme/text");

function legacyRow(s) {
  return text.pad(s, 4);
}

module.exports = { legacyRow };
