user = {"name": "ada"}
print(user["user_id"])
