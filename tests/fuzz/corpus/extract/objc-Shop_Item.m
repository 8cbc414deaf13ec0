#import "Item.h"
#include "../Util/format.h"

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
	return 1.5;
}
@end
