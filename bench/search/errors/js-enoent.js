require("fs").readFileSync("/nonexistent/config.json");
