module Offer where

import Shop.Item
import qualified Shop.Deal as D
import Shop.Deal ((<+>))

offer :: Item -> Int
offer it = D.twice (cost (D.bundle it it <+> it))
