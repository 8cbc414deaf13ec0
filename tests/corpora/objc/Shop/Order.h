#import <Foundation/Foundation.h>
#import "Priced.h"

/* An order has a describe and a price too. */
@interface Order : NSObject <Priced>
- (NSString *)describe;
@end
