import json

def load(text):
    cfg = json.loads(text)
    return cfg["database"]["host"]

print(load('{"database": {"port": 5432}}'))
