#import "shop.h"

int main(void)
{
	Base *b = [Base make];
	Sub *s = [[Sub alloc] init];
	id any = s;
	id<Priced> p = b;
	Leaf *l = [Leaf new];
	[b describe];
	[s extra];
	[s describe];
	[any extra];
	[any describe];
	[p price];
	[l grow];
	NSLog(@"%d", [l size]);
	return 0;
}
