module Shop.Item (Item (..), Priced (..), label, describe) where

import Shop.Util (twice)

data Item = Item { price :: Int }

class Priced a where
  cost :: a -> Int

instance Priced Item where
  cost (Item p) = half (twice p)
    where
      half x = x `div` 2

label :: Item -> String
label it = "item " ++ describe it

describe :: Item -> String
describe (Item 0) = "free"
describe (Item p) = show p
