module Report where

import Legacy.Item
import Shop.Item

report :: Int -> String
report n = describe n
