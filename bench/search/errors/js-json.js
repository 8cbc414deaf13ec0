JSON.parse("{'a': 1}");
