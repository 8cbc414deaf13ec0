// The constructor-function style, before `class`: members are functions
// assigned to properties of this (or of a variable holding it) and of
// plain objects; each is named by its property.
function Widget(name) {
  var self = this;
  self.name = name;
  self.draw = function paint() { return shout(self.name); };
  this.width = () => 1;
}

Widget.prototype.hide = function () { return shout('hide'); };

var panel = {};
panel.close = function () { return shout('close'); };

function shout(text) {
  return text.toUpperCase();
}

function show() {
  const w = new Widget('a');
  w.draw();
  w.hide();
  panel.close();
}

module.exports = { show };
