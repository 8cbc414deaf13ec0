#import "Cart.h"
#import "Item.h"
#import "Log.h"

@implementation Cart
+ (instancetype)empty {
	return [[self alloc] init];
}

- (void)addItem:(Item *)item quantity:(int)count {
	self.last = item;
	[Log write:[item describe] level:count];
	[log flush];
	[self total];
}

- (void)draw {
	[audit flush];
	[outline stroke];
}

- (double)total {
	id thing = self.last;
	return [thing price];
}

- (double)price {
	return [self total];
}

- (NSString *)describe {
	return [[super describe] stringByAppendingString:[self.last describe]];
}
@end
