#import "Order.h"

@implementation Order
- (NSString *)describe {
	return @"order";
}

- (double)price {
	return 0;
}
@end
