module Legacy.Item where

label :: Int -> String
label n = "old " ++ describe n

describe :: Int -> String
describe = show
