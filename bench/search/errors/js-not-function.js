const user = { name: "ada" };
user.getName();
