module Main (main) where

import qualified Shop.Cart as Cart
import Shop.Item (Item (..), label)
import qualified Legacy.Item
import Shop.Util

main :: IO ()
main = do
  let c = Cart.add Cart.empty (Item 3)
  putStrLn (label (Item 1))
  putStrLn $ Legacy.Item.label 2
  print (Cart.total c)
  logMsg "done"
  mapM_ showN [1, 2]
  where
    showN n = print n
