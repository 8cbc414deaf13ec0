/* Built as C or as C++: under C++ its functions are in namespace kv. */
#ifdef __cplusplus
namespace kv {
#endif

int compat_level(void)
{
	return 2;
}

#ifdef __cplusplus
}
#endif
