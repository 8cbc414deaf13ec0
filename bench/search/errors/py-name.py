print(totl)
