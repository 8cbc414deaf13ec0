#import "Item.h"
#include "../Util/format.h"

/* rintf is the C library's, but for one platform: a call of it is not
 * certain to reach this macro.  HALF's default stands in every build. */
#if defined(__sun)
#define rintf(x) rint(x)
#endif
#ifndef HALF
#define HALF(x) ((x) / 2)
#endif

@implementation Item
- (instancetype)initWithName:(NSString *)name {
	self = [super init];
	_name = name;
	return self;
}

- (NSString *)describe {
	return [self.name stringByAppendingString:format_price([self price])];
}

- (double)price {
	return HALF(rintf(3.0f));
}
@end
