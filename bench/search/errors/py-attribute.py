class Config:
    pass

print(Config().timeout)
