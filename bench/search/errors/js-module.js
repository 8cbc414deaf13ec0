require("left-pad-ultra");
