#import "Base.h"
#import "Priced.h"

@class Item;
@class Log;

@interface Cart : Base <Priced> {
	Log *log;
	IBOutlet Log *audit;
	NSBezierPath *outline;
}
@property (nonatomic, strong) Item *last;
+ (instancetype)empty;
- (void)addItem:(Item *)item quantity:(int)count;
- (double)total;
- (void)draw;
@end
