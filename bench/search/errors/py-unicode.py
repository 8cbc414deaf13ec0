b"\xff\xfe".decode("utf-8")
