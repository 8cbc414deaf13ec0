limit = 10
limit()
