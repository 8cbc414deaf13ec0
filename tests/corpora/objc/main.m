#import <Foundation/Foundation.h>
#import "Shop/Cart.h"
#import "Shop/Item.h"
#import "Shop/Order.h"

/* A class declared and implemented in one file. */
@interface Receipt : NSObject {
	Cart *cart;
}
- (void)print;
@end

@implementation Receipt
- (void)print {
	NSLog(@"%f", [cart total]);
}
@end

static void show(id<Priced> priced, Order *order)
{
	NSLog(@"%@ %f", [order describe], [priced price]);
}

int main(int argc, char **argv)
{
	@autoreleasepool {
		Cart *cart = [Cart empty];
		Item *item = [[Item alloc] initWithName:@"tea"];
		[cart addItem:item quantity:2];
		show(item, [Order new]);
		[[Receipt new] print];
	}
	return 0;
}

/* An id cast to a class: the cast states the receiver's type. */
static NSString *label(id thing)
{
	return [(Item *)thing describe];
}
