exports.wrap = function (s, width) {
  return s.length > width ? s.slice(0, width) : s;
};
