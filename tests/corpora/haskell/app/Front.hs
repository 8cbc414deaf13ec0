module Front where

import Shop
import qualified Shop as S

front :: Int -> IO ()
front n = do
  logMsg (summary n)
  S.logMsg (show (twice n))
  print (total [])
  print (label n)
