from os.path import joinpath
