{- bench/accuracy/oracle-haskell.hs: GHC's own binding of every call of a
   project, read from the .hie files that `ghc -fwrite-ide-info` wrote.

     oracle-haskell FILE.hie...      (run in the project's root)

   prints one call site a line in score.py's format (file line col nline
   ncol name kind targets what caller).  A call is

     the head of an application: f x y, M.f x, f @T x (the name, not a
     parenthesised expression);
     f $ x, f $! x, x & f: f (when f is a name; f x $ y is f x's);
     x `f` y, and an operator: x <?> y, a ++ b (a constructor, x : xs,
     is none).

   GHC has resolved each name to a Name; it is

     a top-level function or value of the project: `in`, the target the
     place of its binding (its first equation);
     a method of a class the project declares: `virt`, the target the
     method's signature in the class;
     a function bound in a `where` or `let` (with parameters, f x = ...;
     a parameter, a pattern or a value, f = g x, is not one): `in`, the
     target the place of its binding;
     a record field's selector: `dyn` (a field of a data declaration);
     a name of another package (base, containers, ...): `ext`;
     any other local name (a parameter, a pattern variable, a value of a
     `let` or `where`): `dyn`, a call of a value.

   A data constructor (Just x, ParseError o e) is no call.  The caller
   written in the last column is the top-level binding (or instance
   method) whose equations hold the call. -}
module Main (main) where

import Control.Monad (forM, forM_)
import Data.Array ((!))
import Data.IORef
import Data.List (sortOn)
import qualified Data.Map.Strict as M
import qualified Data.Set as S
import System.Environment (getArgs)
import System.IO

import GHC.Data.FastString (unpackFS)
import GHC.Iface.Env (NameCacheUpdater (..))
import GHC.Iface.Ext.Binary (HieFileResult (..), readHieFile)
import GHC.Iface.Ext.Types
import GHC.Types.Name
import GHC.Types.Name.Cache (initNameCache)
import GHC.Types.SrcLoc
import GHC.Types.Unique.Supply (mkSplitUniqSupply)
import GHC.Unit.Module (moduleName, moduleNameString)
import GHC.Unit.Types (Module)

data Decls = Decls
  { top :: M.Map Name String          -- top-level bindings: their place
  , methods :: M.Map Name String      -- class methods: their signature
  , fields :: S.Set Name
  , localFns :: M.Map Name String     -- where/let functions
  , callers :: [(FilePath, RealSrcSpan, String)] -- bindings: their extent
  }

place :: RealSrcSpan -> String
place s = rel (unpackFS (srcSpanFile s)) ++ ":" ++ show (srcSpanStartLine s)

-- a path as GHC writes it (./Text/A.hs) relative to the root (Text/A.hs)
rel :: FilePath -> FilePath
rel ('.' : '/' : p) = rel p
rel p = p

-- the node's information as written in the source (not generated code)
srcInfo :: HieAST a -> Maybe (NodeInfo a)
srcInfo = M.lookup SourceInfo . getSourcedNodeInfo . sourcedNodeInfo

annots :: HieAST a -> S.Set (String, String)
annots n = maybe S.empty (S.map (\(a, b) -> (unpackFS a, unpackFS b)) . nodeAnnotations) (srcInfo n)

hasAnn :: String -> HieAST a -> Bool
hasAnn c n = S.member (c, "HsExpr") (annots n)

idents :: HieAST a -> [(Name, IdentifierDetails a)]
idents n = [(x, d) | Just i <- [srcInfo n], (Right x, d) <- M.toList (nodeIdentifiers i)]

allNodes :: HieAST a -> [HieAST a]
allNodes n = n : concatMap allNodes (nodeChildren n)

-- a function's type: a -> b, under foralls and constraints
isFunType :: HieFile -> TypeIndex -> Bool
isFunType hf = go (10 :: Int)
  where
    go 0 _ = False
    go k t = case hie_types hf ! t of
      HFunTy {} -> True
      HForAllTy _ b -> go (k - 1) b
      HQualTy _ b -> go (k - 1) b
      _ -> False

declsOf :: HieFile -> Decls
declsOf hf = foldr add (Decls M.empty M.empty S.empty M.empty []) binds
  where
    asts = M.elems (getAsts (hie_asts hf))
    binds = [(nd, x, d, c) | a <- asts, nd <- allNodes a, (x, d) <- idents nd, c <- S.toList (identInfo d)]
    file = hie_hs_file hf
    -- the names bound without parameters (x = ..., x = \y -> ...)
    values = S.fromList
      [ x | a <- asts, nd <- allNodes a, S.member ("FunBind", "HsBindLR") (annots nd)
      , let ms = [m | m <- nodeChildren nd, S.member ("Match", "Match") (annots m)]
      , not (any (any (any ((== "Pat") . snd) . S.toList . annots) . nodeChildren) ms)
      , c <- nodeChildren nd, (x, d) <- idents c, any isValBind (S.toList (identInfo d)) ]
    isValBind ValBind {} = True
    isValBind _ = False
    add (nd, x, d, c) ds = case c of
      ValBind RegularBind ModuleScope (Just ext) ->
        ds { top = M.insert x (place (nodeSpan nd)) (top ds), callers = (file, ext, place (nodeSpan nd)) : callers ds }
      ValBind InstanceBind _ (Just ext) ->
        ds { callers = (file, ext, place (nodeSpan nd)) : callers ds }
      ValBind RegularBind _ _
        | maybe False (isFunType hf) (identType d) && not (S.member x values) ->
            ds { localFns = M.insert x (place (nodeSpan nd)) (localFns ds) }
      ClassTyDecl _ -> ds { methods = M.insert x (place (nodeSpan nd)) (methods ds) }
      RecField RecFieldDecl _ -> ds { fields = S.insert x (fields ds) }
      _ -> ds

merge :: Decls -> Decls -> Decls
merge a b = Decls (M.union (top a) (top b)) (M.union (methods a) (methods b))
  (S.union (fields a) (fields b)) (M.union (localFns a) (localFns b)) (callers a ++ callers b)

-- the head of an application: f of f x y, f @T x
headOf :: HieAST a -> HieAST a
headOf n
  | hasAnn "HsApp" n || hasAnn "HsAppType" n, (f : _) <- nodeChildren n = headOf f
  | otherwise = n

-- the name a node stands for when it is a plain variable (HsVar)
varOf :: HieAST a -> Maybe Name
varOf n
  | hasAnn "HsVar" n, [(x, _)] <- [(x, d) | (x, d) <- idents n, S.member Use (identInfo d)] = Just x
  | otherwise = Nothing

isOp :: Name -> String -> String -> Bool
isOp x m s = occNameString (nameOccName x) == s &&
  maybe False ((== m) . moduleNameString . moduleName) (nameModule_maybe x)

-- the call sites under a node: (call start, name node, name)
sites :: HieAST a -> [(RealSrcSpan, RealSrcSpan, Name)]
sites = go False
  where
    go inFun n =
      here inFun n ++ case nodeChildren n of
        (f : rest) | hasAnn "HsApp" n || hasAnn "HsAppType" n -> go True f ++ concatMap (go False) rest
        cs -> concatMap (go False) cs
    call start h = [(start, nodeSpan h, x) | Just x <- [varOf h]]
    here inFun n
      | (hasAnn "HsApp" n || hasAnn "HsAppType" n) && not inFun = call (nodeSpan n) (headOf n)
      | hasAnn "OpApp" n, [l, o, r] <- nodeChildren n, Just x <- varOf o =
          if isOp x "GHC.Base" "$" || isOp x "GHC.Base" "$!"
            then if isApp l then [] else call (nodeSpan n) l
          else if isOp x "Data.Function" "&"
            then if isApp r then [] else call (nodeSpan n) r
          else [(nodeSpan n, nodeSpan o, x)]
      | otherwise = []
    isApp m = hasAnn "HsApp" m || hasAnn "HsAppType" m

main :: IO ()
main = do
  paths <- getArgs
  us <- mkSplitUniqSupply 'z'
  ref <- newIORef (initNameCache us [])
  let ncu = NCU (\f -> atomicModifyIORef' ref f)
  hfs <- forM paths $ \p -> hie_file_result <$> readHieFile ncu p
  let mods = S.fromList (map hie_module hfs)
      ds = foldr (merge . declsOf) (Decls M.empty M.empty S.empty M.empty []) hfs
      callerOf file s =
        case sortOn (\(_, e, _) -> negate (srcSpanStartLine e)) -- the innermost: the last to start
               [c | c@(f, e, _) <- callers ds, f == file, containsSpan e s] of
          ((_, _, p) : _) -> p
          [] -> "-"
  forM_ hfs $ \hf -> do
    let file = hie_hs_file hf
    forM_ (M.elems (getAsts (hie_asts hf))) $ \ast ->
      forM_ (sites ast) $ \(start, nm, x) -> do
        let occ = nameOccName x
            name = occNameString occ
            modq = maybe "" ((++ ".") . moduleNameString . moduleName) (nameModule_maybe x)
            ours = maybe False (`S.member` mods) (nameModule_maybe x)
            (kind, targets, what)
              | isDataOcc occ = ("", "", "")
              | Just p <- M.lookup x (methods ds) = ("virt", p, modq ++ name)
              | S.member x (fields ds) = ("dyn", "-", "field " ++ modq ++ name)
              | Just p <- M.lookup x (top ds) = ("in", p, modq ++ name)
              | Just p <- M.lookup x (localFns ds) = ("in", p, "local " ++ name)
              | isExternalName x && not ours = ("ext", "-", modq ++ name)
              | otherwise = ("dyn", "-", "local " ++ name)
        if null kind
          then return ()
          else putStrLn $ concatMap (++ "\t")
            [ rel file, show (srcSpanStartLine start), show (srcSpanStartCol start)
            , show (srcSpanStartLine nm), show (srcSpanStartCol nm), name, kind, targets, what ]
            ++ callerOf file start
  hFlush stdout
