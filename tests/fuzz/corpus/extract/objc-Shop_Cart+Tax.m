#import "Cart.h"

/* A category: its methods are Cart's. */
@interface Cart (Tax)
- (double)tax;
@end

@implementation Cart (Tax)
- (double)tax {
	return [self total] * 0.2;
}
@end
